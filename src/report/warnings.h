#pragma once

#include <vector>

#include "report/report.h"

namespace ampbench::report {

// What a reader should be told about how far to trust the figures, each with advice: trials that
// diverged, ran out of memory or were interrupted, modes skipped or handicapped by the hardware, an
// fp16 loss scale that collapsed or never let the optimizer step, a mode far slower than fp32, epochs
// whose threads waited for a CPU, outlying epoch times (MAD-based), a high coefficient of variation, a
// debug build, too few repeats for a verdict, a set-up that failed.
// A pure function of the report.
std::vector<Warning> find_warnings(const RunReport& report);

// An epoch is called an outlier only this far from its mode's median (a fraction of it), beside the MAD
// rule: with near-constant epochs the MAD is near zero, and any wobble would pass that rule alone.
inline constexpr double kOutlierMinDeviation = 0.05;
// An epoch whose threads waited for a CPU (the kernel's run-queue delay) more than this share of the CPU
// time they could use was contended: a quiet machine keeps it near zero.
inline constexpr double kContentionWaitShare = 0.10;
// Above this coefficient of variation of per-epoch samples/s, a mode's figures are called noisy.
inline constexpr double kHighCoefficientOfVariation = 0.05;
// Fewer repeats than this give no uncertainty interval strong enough for a verdict.
inline constexpr int64_t kRepeatsForAVerdict = 3;
// A 16-bit mode whose profiled pass ran less than this share of its matrix FLOPs in 16-bit did not get
// the precision it is named for (an op autocast does not cover, a model that casts back to fp32).
inline constexpr double kMinLowPrecisionFlopShare = 0.9;
// A mode whose speed-up against fp32 is below this (its interval's upper end, where there is one) is
// called slow, whatever the hardware flags promise: at half fp32's speed, 16-bit arithmetic is not
// paying for itself, and a slow path (a generic kernel, a fallback) is the usual cause.
inline constexpr double kSlowModeSpeedup = 0.5;
// fp16's scale is said to collapse when it backs off this many optimizer steps in a row (the first steps
// of a run often back off a few times while the scale finds its level)...
inline constexpr int64_t kScaleCollapseRun = 5;
// ...or falls below this: gradients scaled down rather than up, which loss scaling never needs.
inline constexpr double kScaleCollapseFloor = 1.0;

}  // namespace ampbench::report
