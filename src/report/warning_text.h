#pragma once

#include <cstdio>
#include <string>

#include "amp/precision_mode.h"

namespace ampbench::report {

// A warning's figures: `pattern` (printf's) with up to three numbers.
inline std::string format(const char* pattern, double a, double b = 0, double c = 0) {
  char text[160];
  std::snprintf(text, sizeof text, pattern, a, b, c);
  return text;
}

inline std::string mode_name(amp::PrecisionMode mode) { return std::string(amp::to_string(mode)); }

}  // namespace ampbench::report
