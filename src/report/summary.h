#pragma once

#include <vector>

#include "report/report.h"

namespace ampbench::report {

// Compares every mode with fp32: throughput speed-up over the compared epochs, peak-memory ratio and
// the final validation loss's difference. A pure function of the measurements.
std::vector<ModeSummary> summarize(const std::vector<ModeRecord>& modes);

}  // namespace ampbench::report
