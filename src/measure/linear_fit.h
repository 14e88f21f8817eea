#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "measure/statistics.h"

namespace ampbench::measure {

// y = intercept + slope * x by ordinary least squares, with 95 % t intervals of both coefficients
// (n - 2 degrees of freedom).
struct LinearFit {
  int64_t samples = 0;
  double intercept = 0;
  double slope = 0;
  std::optional<Interval> intercept_interval;  // three samples or more
  std::optional<Interval> slope_interval;
};

// nullopt without two distinct x (or with x and y of different lengths): no line is determined.
std::optional<LinearFit> fit_line(const std::vector<double>& x, const std::vector<double>& y,
                                  double confidence = 0.95);

}  // namespace ampbench::measure
