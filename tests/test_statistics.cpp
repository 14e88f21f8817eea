#include <cmath>
#include <vector>

#include <gtest/gtest.h>

#include "measure/linear_fit.h"
#include "measure/statistics.h"

using namespace ampbench::measure;

TEST(Statistics, CentralValuesAndSpreadByHand) {
  std::vector<double> x{2, 4, 4, 4, 5, 5, 7, 9};
  EXPECT_DOUBLE_EQ(*mean(x), 5.0);
  EXPECT_DOUBLE_EQ(*median(x), 4.5);
  EXPECT_DOUBLE_EQ(*stddev(x), std::sqrt(32.0 / 7.0));  // sum of squares 32, n - 1 = 7
  EXPECT_DOUBLE_EQ(*coefficient_of_variation(x), std::sqrt(32.0 / 7.0) / 5.0);
  EXPECT_DOUBLE_EQ(*min_of(x), 2.0);
  EXPECT_DOUBLE_EQ(*max_of(x), 9.0);
  // numpy.quantile([2,4,4,4,5,5,7,9], [0.25, 0.75]) = [4.0, 5.5]
  EXPECT_DOUBLE_EQ(*interquartile_range(x), 1.5);
  EXPECT_DOUBLE_EQ(*quantile(x, 0.9), 7.6);  // between 7 (rank 6) and 9 (rank 7): 7 + 0.3 * 2
  EXPECT_DOUBLE_EQ(*median_absolute_deviation(x), 0.5);
}

TEST(Statistics, UndefinedWhereUndefined) {
  std::vector<double> one{3.0};
  EXPECT_DOUBLE_EQ(*mean(one), 3.0);
  EXPECT_DOUBLE_EQ(*median(one), 3.0);
  EXPECT_FALSE(stddev(one).has_value());
  EXPECT_FALSE(coefficient_of_variation(one).has_value());
  EXPECT_FALSE(interquartile_range(one).has_value());
  EXPECT_FALSE(mean({}).has_value());
  EXPECT_FALSE(median({}).has_value());
  EXPECT_FALSE(coefficient_of_variation({0.0, 0.0}).has_value());
  auto s = summarize_samples(one);
  EXPECT_EQ(s.count, 1);
  EXPECT_FALSE(s.stddev.has_value());
}

TEST(Statistics, MadOutliersFindTheStrayTime) {
  std::vector<double> times{1.00, 1.02, 0.99, 1.01, 1.00, 1.60};
  EXPECT_EQ(mad_outliers(times), (std::vector<size_t>{5}));
  EXPECT_TRUE(mad_outliers({1.0, 1.0, 1.0, 1.5}).empty());  // MAD 0: no verdict
  EXPECT_TRUE(mad_outliers({1.0, 9.0}).empty());            // too few samples
}

TEST(Statistics, BootstrapIntervalHoldsTheRatioAndIsReproducible) {
  std::vector<double> fast{2.0, 2.1, 1.9, 2.05, 1.95};
  std::vector<double> slow{1.0, 1.05, 0.95, 1.02, 0.98};
  auto interval = bootstrap_ratio_of_medians(fast, slow);
  ASSERT_TRUE(interval.has_value());
  EXPECT_LE(interval->low, 2.0);
  EXPECT_GE(interval->high, 2.0);
  EXPECT_GT(interval->low, 1.7);
  EXPECT_LT(interval->high, 2.3);
  auto again = bootstrap_ratio_of_medians(fast, slow);
  EXPECT_EQ(again->low, interval->low);
  EXPECT_EQ(again->high, interval->high);
  EXPECT_FALSE(bootstrap_ratio_of_medians({2.0}, slow).has_value());
}

TEST(Statistics, BootstrapMedianIntervalCoversTheMedianAndNarrowsWithLessSpread) {
  std::vector<double> tight{1.00, 1.01, 0.99, 1.02, 0.98, 1.00, 1.01};
  std::vector<double> loose{1.00, 1.20, 0.80, 1.30, 0.70, 1.00, 1.10};
  auto a = bootstrap_median(tight);
  auto b = bootstrap_median(loose);
  ASSERT_TRUE(a.has_value());
  ASSERT_TRUE(b.has_value());
  EXPECT_LE(a->low, 1.0);
  EXPECT_GE(a->high, 1.0);
  EXPECT_GE(a->low, 0.98);  // a median's bootstrap never leaves the samples' range
  EXPECT_LE(a->high, 1.02);
  EXPECT_LT(a->high - a->low, b->high - b->low);
  EXPECT_EQ(bootstrap_median(tight)->low, a->low);  // fixed seed: reproducible
  EXPECT_FALSE(bootstrap_median({1.0}).has_value());
}

namespace {

// The least-squares line and its t intervals, against values worked by hand (numpy.polyfit and
// scipy.stats.t for the intervals give the same).
TEST(LinearFit, TheLineThroughExactPointsHasZeroWidthIntervals) {
  const auto fit = ampbench::measure::fit_line({1, 2, 3, 4}, {3, 5, 7, 9});
  ASSERT_TRUE(fit);
  EXPECT_NEAR(fit->intercept, 1.0, 1e-12);
  EXPECT_NEAR(fit->slope, 2.0, 1e-12);
  EXPECT_NEAR(fit->slope_interval->low, 2.0, 1e-12);
  EXPECT_NEAR(fit->intercept_interval->high, 1.0, 1e-12);
}

TEST(LinearFit, NoisyPointsGiveTheTIntervalsOfTheCoefficients) {
  // x = 1..5, y = 2.1, 3.9, 6.2, 7.8, 10.1: slope 1.99, intercept 0.05, residual SS 0.107,
  // s = sqrt(0.107 / 3), Sxx = 10, t(3) = 3.182446.
  const auto fit = ampbench::measure::fit_line({1, 2, 3, 4, 5}, {2.1, 3.9, 6.2, 7.8, 10.1});
  ASSERT_TRUE(fit);
  EXPECT_NEAR(fit->slope, 1.99, 1e-12);
  EXPECT_NEAR(fit->intercept, 0.05, 1e-12);
  const double s = std::sqrt(0.107 / 3), t = 3.182446;
  EXPECT_NEAR(fit->slope_interval->high - fit->slope, t * s / std::sqrt(10.0), 1e-5);
  EXPECT_NEAR(fit->intercept_interval->high - fit->intercept, t * s * std::sqrt(1.0 / 5 + 9.0 / 10), 1e-5);
}

TEST(LinearFit, WithoutTwoDistinctXThereIsNoLineAndWithTwoPointsNoInterval) {
  EXPECT_FALSE(ampbench::measure::fit_line({2, 2, 2}, {1, 2, 3}));
  EXPECT_FALSE(ampbench::measure::fit_line({1}, {1}));
  EXPECT_FALSE(ampbench::measure::fit_line({1, 2}, {1}));
  const auto two = ampbench::measure::fit_line({1, 2}, {1, 3});
  ASSERT_TRUE(two);
  EXPECT_FALSE(two->slope_interval);
}

}  // namespace
