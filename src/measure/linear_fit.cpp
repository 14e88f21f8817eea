#include "measure/linear_fit.h"

#include <cmath>

#include "measure/equivalence.h"

namespace ampbench::measure {

std::optional<LinearFit> fit_line(const std::vector<double>& x, const std::vector<double>& y,
                                  double confidence) {
  const auto n = static_cast<int64_t>(x.size());
  if (n < 2 || x.size() != y.size()) return std::nullopt;
  const double mean_x = *mean(x), mean_y = *mean(y);
  double sxx = 0, sxy = 0;
  for (int64_t i = 0; i < n; ++i) {
    sxx += (x[i] - mean_x) * (x[i] - mean_x);
    sxy += (x[i] - mean_x) * (y[i] - mean_y);
  }
  if (sxx <= 0) return std::nullopt;
  LinearFit fit{n, 0, sxy / sxx, {}, {}};
  fit.intercept = mean_y - fit.slope * mean_x;
  if (n < 3) return fit;
  double residuals = 0;
  for (int64_t i = 0; i < n; ++i) {
    const double r = y[i] - fit.intercept - fit.slope * x[i];
    residuals += r * r;
  }
  const double s = std::sqrt(residuals / static_cast<double>(n - 2));
  const double t = t_critical(n - 2, confidence);
  const double slope_se = s / std::sqrt(sxx);
  const double intercept_se = s * std::sqrt(1.0 / static_cast<double>(n) + mean_x * mean_x / sxx);
  fit.slope_interval = Interval{fit.slope - t * slope_se, fit.slope + t * slope_se};
  fit.intercept_interval = Interval{fit.intercept - t * intercept_se, fit.intercept + t * intercept_se};
  return fit;
}

}  // namespace ampbench::measure
