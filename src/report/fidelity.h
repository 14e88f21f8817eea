#pragma once

#include <optional>

#include "report/report.h"

namespace ampbench::report {

// A mode's final validation figures over the fidelity seeds: at the run's own seed, the median over its
// finished timed trials; at each other seed, its finished fidelity trial. Against fp32's at the same seeds
// (paired), the verdict of measure::judge_equivalence within `tolerance`; fp32 itself, any mode without a
// seed that fp32 finished too, and a float8 or float4 mode that ran no layer in its format have no verdict.
FidelitySummary summarize_fidelity(amp::PrecisionMode mode, const train::ExperimentResult& measured,
                                   double tolerance);

// fp32's seed-to-seed standard deviation of the final val loss; empty with fewer than two seeds.
std::optional<double> fidelity_noise_floor(const train::ExperimentResult& measured);

}  // namespace ampbench::report
