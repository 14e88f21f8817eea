#pragma once

#include <exception>
#include <string>

#include <c10/util/Exception.h>

namespace ampbench::numerics {

// An error's first line, without c10's stack: what an observer's callback says of an error it caught.
inline std::string error_line(const std::exception& e) {
  const auto* c10_error = dynamic_cast<const c10::Error*>(&e);
  const std::string text = c10_error ? c10_error->what_without_backtrace() : e.what();
  return text.substr(0, text.find('\n'));
}

}  // namespace ampbench::numerics
