#include "measure/equivalence.h"

#include <cmath>
#include <stdexcept>

#include <boost/math/distributions/students_t.hpp>

namespace ampbench::measure {
namespace {

double half_width(double stddev, int64_t n) { return t_critical(n - 1) * stddev / std::sqrt(double(n)); }

bool inside(const Interval& i, double tolerance) { return i.low >= -tolerance && i.high <= tolerance; }
bool outside(const Interval& i, double tolerance) { return i.low > tolerance || i.high < -tolerance; }

// The distance from the mean to the bound the interval must clear: tolerance - |mean| to be equivalent,
// |mean| - tolerance to be different.
std::optional<int64_t> samples_to_decide(double mean, double stddev, double tolerance) {
  const double margin = std::abs(std::abs(mean) - tolerance);
  for (int64_t n = 2; n <= kMaxSamplesAdvised; ++n) {
    if (half_width(stddev, n) < margin) return n;
  }
  return std::nullopt;
}

}  // namespace

double t_critical(int64_t df, double confidence) {
  if (df < 1) throw std::invalid_argument("t_critical: df must be >= 1");
  if (!(confidence > 0 && confidence < 1))
    throw std::invalid_argument("t_critical: confidence must be in (0, 1)");
  const boost::math::students_t distribution(static_cast<double>(df));
  return boost::math::quantile(boost::math::complement(distribution, (1 - confidence) / 2));
}

EquivalenceJudgement judge_equivalence(const std::vector<double>& differences, double tolerance) {
  if (differences.empty()) throw std::invalid_argument("judge_equivalence: no differences");
  EquivalenceJudgement j;
  j.samples = static_cast<int64_t>(differences.size());
  j.mean_difference = *mean(differences);
  if (j.samples == 1) {
    j.verdict = std::abs(j.mean_difference) <= tolerance ? Equivalence::equivalent : Equivalence::different;
    return j;
  }
  j.stddev = *stddev(differences);
  const double h = half_width(*j.stddev, j.samples);
  j.interval = Interval{j.mean_difference - h, j.mean_difference + h};
  if (inside(*j.interval, tolerance)) {
    j.verdict = Equivalence::equivalent;
  } else if (outside(*j.interval, tolerance)) {
    j.verdict = Equivalence::different;
  } else {
    j.verdict = Equivalence::undecided;
    j.samples_needed = samples_to_decide(j.mean_difference, *j.stddev, tolerance);
  }
  return j;
}

}  // namespace ampbench::measure
