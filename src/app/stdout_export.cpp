#include "app/stdout_export.h"

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace ampbench::app {

std::optional<std::string> write_stdout_export(const std::string& text) {
  errno = 0;
  const bool written = std::fwrite(text.data(), 1, text.size(), stdout) == text.size();
  if (std::fflush(stdout) == 0 && written) return std::nullopt;
  const int error = errno;
  std::clearerr(stdout);
  return "the export to stdout could not be written" +
         (error != 0 ? std::string(": ") + std::strerror(error) : std::string());
}

}  // namespace ampbench::app
