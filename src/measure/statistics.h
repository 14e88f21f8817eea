#pragma once

#include <cstdint>
#include <optional>
#include <vector>

namespace ampbench::measure {

// Small pure statistics over samples. Each returns nullopt where the figure is undefined (no samples;
// a spread from one sample), never a made-up 0.

std::optional<double> mean(const std::vector<double>& x);
std::optional<double> median(const std::vector<double>& x);
// Linear interpolation between closest ranks (numpy's default); q in [0, 1].
std::optional<double> quantile(const std::vector<double>& x, double q);
std::optional<double> min_of(const std::vector<double>& x);
std::optional<double> max_of(const std::vector<double>& x);
// Sample standard deviation (n - 1): needs two samples.
std::optional<double> stddev(const std::vector<double>& x);
// Coefficient of variation, stddev / mean: needs two samples and a non-zero mean.
std::optional<double> coefficient_of_variation(const std::vector<double>& x);
// Interquartile range, q(0.75) - q(0.25): needs two samples.
std::optional<double> interquartile_range(const std::vector<double>& x);
// Median absolute deviation from the median (unscaled).
std::optional<double> median_absolute_deviation(const std::vector<double>& x);
// Indices of outliers by the modified z-score 0.6745 |x - median| / MAD > threshold (Iglewicz and
// Hoaglin's 3.5); none when MAD is 0 or there are fewer than three samples.
std::vector<size_t> mad_outliers(const std::vector<double>& x, double threshold = 3.5);

struct Interval {
  double low;
  double high;
};
// Percentile bootstrap interval (95 % by default) of median(a) / median(b), resampling a and b
// independently with a fixed seed, so the same samples always give the same interval. Needs two
// samples on each side.
std::optional<Interval> bootstrap_ratio_of_medians(const std::vector<double>& a, const std::vector<double>& b,
                                                   double confidence = 0.95, int resamples = 2000,
                                                   uint64_t seed = 0x5eed);
// Percentile bootstrap interval of median(x), for paired measurements reduced to one series (e.g. the
// per-round ratios of two alternated runs). Needs two samples; fixed seed as above.
std::optional<Interval> bootstrap_median(const std::vector<double>& x, double confidence = 0.95,
                                         int resamples = 2000, uint64_t seed = 0x5eed);

// All of the above for one series, as the report shows it.
struct Summary {
  int64_t count = 0;
  std::optional<double> mean, median, stddev, cv, iqr, min, max;
};
Summary summarize_samples(const std::vector<double>& x);

}  // namespace ampbench::measure
