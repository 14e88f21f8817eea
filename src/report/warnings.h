#pragma once

#include <vector>

#include "report/report.h"

namespace ampbench::report {

// What a reader should be told about how far to trust the figures, each with advice: trials that
// diverged, ran out of memory or were interrupted, modes skipped or handicapped by the hardware, an
// fp16 loss scale that collapsed, outlying epoch times (MAD-based), a high coefficient of variation, a
// debug build, too few repeats for a verdict.
// A pure function of the report.
std::vector<Warning> find_warnings(const RunReport& report);

// An epoch is called an outlier only this far from its mode's median (a fraction of it), beside the MAD
// rule: with near-constant epochs the MAD is near zero, and any wobble would pass that rule alone.
inline constexpr double kOutlierMinDeviation = 0.05;
// Above this coefficient of variation of per-epoch samples/s, a mode's figures are called noisy.
inline constexpr double kHighCoefficientOfVariation = 0.05;
// Fewer repeats than this give no uncertainty interval strong enough for a verdict.
inline constexpr int64_t kRepeatsForAVerdict = 3;
// A 16-bit mode whose profiled pass ran less than this share of its matrix FLOPs in 16-bit did not get
// the precision it is named for (an op autocast does not cover, a model that casts back to fp32).
inline constexpr double kMinLowPrecisionFlopShare = 0.9;
// fp16's scale is said to collapse when it backs off this many optimizer steps in a row (the first steps
// of a run often back off a few times while the scale finds its level)...
inline constexpr int64_t kScaleCollapseRun = 5;
// ...or falls below this: gradients scaled down rather than up, which loss scaling never needs.
inline constexpr double kScaleCollapseFloor = 1.0;

}  // namespace ampbench::report
