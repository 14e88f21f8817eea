#pragma once

#include <vector>

#include "report/report.h"

namespace ampbench::report {

// What a reader should be told about how far to trust the figures, each with advice: trials that
// diverged, ran out of memory or were interrupted, outlying epoch times (MAD-based), a high coefficient
// of variation, a debug build, too few repeats for a verdict.
// A pure function of the report.
std::vector<Warning> find_warnings(const RunReport& report);

// Above this coefficient of variation of per-epoch samples/s, a mode's figures are called noisy.
inline constexpr double kHighCoefficientOfVariation = 0.05;
// Fewer repeats than this give no uncertainty interval strong enough for a verdict.
inline constexpr int64_t kRepeatsForAVerdict = 3;

}  // namespace ampbench::report
