#pragma once

#include <vector>

#include "report/report.h"

namespace ampbench::report {

// Summarises every mode over its finished trials and compares it with fp32: throughput speed-up
// (median over trials, with a bootstrap interval), peak- and activation-memory ratios, the final
// validation loss's difference, the fidelity over seeds and its verdict (report/fidelity.h), and achieved
// TFLOP/s and MFU. A pure function of the measurements, in the order the modes first ran.
std::vector<ModeSummary> summarize(const RunContext& context, const train::ExperimentResult& measured);

// Which of a trial's epochs its speed figures compare, as the index of the first: the first epoch pays
// one-off costs (allocator growth, kernel selection), so it is left out when there are others. The one
// place this rule is written: report.json carries its result (summary[].trials_compared) for every reader.
size_t first_compared_epoch(size_t epochs);

// The modes in the order they first ran, finished or not: the order of every table and summary, so that
// a mode whose first trial failed keeps its place.
std::vector<amp::PrecisionMode> modes_in_run_order(const std::vector<train::TrialRecord>& trials);

}  // namespace ampbench::report
