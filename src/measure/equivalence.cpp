#include "measure/equivalence.h"

#include <array>
#include <cmath>
#include <stdexcept>

namespace ampbench::measure {
namespace {

// t(0.975, df) for df 1 to 30, from the standard tables; past 30, a Cornish-Fisher expansion about the
// normal quantile, within 1e-4 of the exact value there.
constexpr std::array<double, 30> kT975{12.7062, 4.3027, 3.1824, 2.7764, 2.5706, 2.4469, 2.3646, 2.3060,
                                       2.2622,  2.2281, 2.2010, 2.1788, 2.1604, 2.1448, 2.1314, 2.1199,
                                       2.1098,  2.1009, 2.0930, 2.0860, 2.0796, 2.0739, 2.0687, 2.0639,
                                       2.0595,  2.0555, 2.0518, 2.0484, 2.0452, 2.0423};

double half_width(double stddev, int64_t n) { return student_t_975(n - 1) * stddev / std::sqrt(double(n)); }

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

double student_t_975(int64_t df) {
  if (df < 1) throw std::invalid_argument("student_t_975: df must be >= 1");
  if (df <= static_cast<int64_t>(kT975.size())) return kT975[df - 1];
  const double z = 1.959963984540054, v = double(df);
  return z + (z * z * z + z) / (4 * v) + (5 * std::pow(z, 5) + 16 * z * z * z + 3 * z) / (96 * v * v);
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
