#include "measure/statistics.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

namespace ampbench::measure {
namespace {

std::vector<double> sorted(std::vector<double> x) {
  std::sort(x.begin(), x.end());
  return x;
}

double quantile_of_sorted(const std::vector<double>& s, double q) {
  double position = q * static_cast<double>(s.size() - 1);
  auto below = static_cast<size_t>(std::floor(position));
  auto above = std::min(below + 1, s.size() - 1);
  double fraction = position - static_cast<double>(below);
  return s[below] + (s[above] - s[below]) * fraction;
}

}  // namespace

std::optional<double> mean(const std::vector<double>& x) {
  if (x.empty()) return std::nullopt;
  return std::accumulate(x.begin(), x.end(), 0.0) / static_cast<double>(x.size());
}

std::optional<double> quantile(const std::vector<double>& x, double q) {
  if (x.empty() || q < 0.0 || q > 1.0) return std::nullopt;
  return quantile_of_sorted(sorted(x), q);
}

std::optional<double> median(const std::vector<double>& x) { return quantile(x, 0.5); }

std::optional<double> min_of(const std::vector<double>& x) {
  if (x.empty()) return std::nullopt;
  return *std::min_element(x.begin(), x.end());
}

std::optional<double> max_of(const std::vector<double>& x) {
  if (x.empty()) return std::nullopt;
  return *std::max_element(x.begin(), x.end());
}

std::optional<double> stddev(const std::vector<double>& x) {
  if (x.size() < 2) return std::nullopt;
  double m = *mean(x);
  double squares = 0.0;
  for (double v : x) squares += (v - m) * (v - m);
  return std::sqrt(squares / static_cast<double>(x.size() - 1));
}

std::optional<double> coefficient_of_variation(const std::vector<double>& x) {
  auto s = stddev(x);
  if (!s || *mean(x) == 0.0) return std::nullopt;
  return *s / std::abs(*mean(x));
}

std::optional<double> interquartile_range(const std::vector<double>& x) {
  if (x.size() < 2) return std::nullopt;
  auto s = sorted(x);
  return quantile_of_sorted(s, 0.75) - quantile_of_sorted(s, 0.25);
}

std::optional<double> median_absolute_deviation(const std::vector<double>& x) {
  auto m = median(x);
  if (!m) return std::nullopt;
  std::vector<double> deviations;
  for (double v : x) deviations.push_back(std::abs(v - *m));
  return median(deviations);
}

std::vector<size_t> mad_outliers(const std::vector<double>& x, double threshold) {
  std::vector<size_t> out;
  if (x.size() < 3) return out;
  double m = *median(x);
  double mad = *median_absolute_deviation(x);
  if (mad == 0.0) return out;
  for (size_t i = 0; i < x.size(); ++i) {
    if (0.6745 * std::abs(x[i] - m) / mad > threshold) out.push_back(i);
  }
  return out;
}

namespace {

// The median of a resample of x, drawn with replacement.
double resample_median(const std::vector<double>& x, std::mt19937_64& rng) {
  std::uniform_int_distribution<size_t> pick(0, x.size() - 1);
  std::vector<double> sample(x.size());
  for (auto& v : sample) v = x[pick(rng)];
  return *median(sample);
}

// The central `confidence` share of bootstrap estimates.
std::optional<Interval> percentile_interval(const std::vector<double>& estimates, double confidence) {
  if (estimates.empty()) return std::nullopt;
  auto s = sorted(estimates);
  double tail = (1.0 - confidence) / 2.0;
  return Interval{quantile_of_sorted(s, tail), quantile_of_sorted(s, 1.0 - tail)};
}

}  // namespace

std::optional<Interval> bootstrap_ratio_of_medians(const std::vector<double>& a, const std::vector<double>& b,
                                                   double confidence, int resamples, uint64_t seed) {
  if (a.size() < 2 || b.size() < 2 || resamples < 1) return std::nullopt;
  std::mt19937_64 rng(seed);
  std::vector<double> ratios;
  ratios.reserve(static_cast<size_t>(resamples));
  for (int i = 0; i < resamples; ++i) {
    double denominator = resample_median(b, rng);
    double numerator = resample_median(a, rng);
    if (denominator != 0.0) ratios.push_back(numerator / denominator);
  }
  return percentile_interval(ratios, confidence);
}

std::optional<Interval> bootstrap_median(const std::vector<double>& x, double confidence, int resamples,
                                         uint64_t seed) {
  if (x.size() < 2 || resamples < 1) return std::nullopt;
  std::mt19937_64 rng(seed);
  std::vector<double> medians;
  medians.reserve(static_cast<size_t>(resamples));
  for (int i = 0; i < resamples; ++i) medians.push_back(resample_median(x, rng));
  return percentile_interval(medians, confidence);
}

Summary summarize_samples(const std::vector<double>& x) {
  return {static_cast<int64_t>(x.size()), mean(x),   median(x), stddev(x), coefficient_of_variation(x),
          interquartile_range(x),         min_of(x), max_of(x)};
}

}  // namespace ampbench::measure
