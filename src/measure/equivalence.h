#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "measure/statistics.h"

namespace ampbench::measure {

// The two-sided critical value of Student's t with `df` degrees of freedom (df >= 1) at `confidence` (in
// (0, 1)): the factor of a confidence interval of a mean from df + 1 samples (2.776 for df 4 at 0.95).
double t_critical(int64_t df, double confidence = 0.95);

// Whether paired differences (one per seed: a mode's final loss minus the baseline's at the same seed) are
// within +-tolerance of zero, judged on the 95 % t interval of their mean as an equivalence test does:
//   equivalent: the whole interval lies inside [-tolerance, tolerance];
//   different:  the whole interval lies outside it (beyond the tolerance and beyond the noise);
//   undecided:  the interval straddles a bound: more samples are needed.
// One difference has no interval: it is judged on the point, and `interval` stays empty.
enum class Equivalence { equivalent, different, undecided };

struct EquivalenceJudgement {
  Equivalence verdict = Equivalence::undecided;
  int64_t samples = 0;
  double mean_difference = 0;
  std::optional<double> stddev;      // of the differences (two or more)
  std::optional<Interval> interval;  // 95 % t interval of the mean difference (two or more)
  // Undecided: how many samples in all would make the interval narrow enough to decide, if the
  // differences keep their mean and spread; empty when no count up to kMaxSamplesAdvised would.
  std::optional<int64_t> samples_needed;
};

constexpr int64_t kMaxSamplesAdvised = 1000;

// Needs at least one difference and tolerance >= 0.
EquivalenceJudgement judge_equivalence(const std::vector<double>& differences, double tolerance);

}  // namespace ampbench::measure
