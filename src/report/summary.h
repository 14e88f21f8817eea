#pragma once

#include <vector>

#include "report/report.h"

namespace ampbench::report {

// Summarises every mode over its trials and compares it with fp32: throughput speed-up (median over
// trials, with a bootstrap interval), peak-memory ratio, and the final validation loss's difference.
// A pure function of the measurements, in the order the modes first ran.
std::vector<ModeSummary> summarize(const std::vector<TrialRecord>& trials);

}  // namespace ampbench::report
