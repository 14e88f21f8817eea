#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "max_batch/max_batch_report.h"
#include "run/benchmark.h"

namespace ampbench::max_batch {

// The largest batch each mode fits within a memory budget, and each mode's throughput at its own.
struct MaxBatchRequest {
  run::Request base;  // the config and how to run each mode's timed run; no exports
  // The budget in bytes; unset: a GPU's free memory (on the CPU a budget must be given).
  std::optional<int64_t> memory_budget;
};

struct MaxBatchOutcome {
  config::ExperimentConfig config;  // as resolved, every default filled in
  MaxBatchReport report;
  std::vector<run::Outcome> runs;            // each measured mode's run at its largest batch, in order
  std::filesystem::path folder;              // <output dir>/<name>-max-batch-<UTC time>
  std::optional<std::string> stopped_by;     // the signal that ended it early
  std::optional<std::string> write_failure;  // why its own report could not be written
};

// The front door of --max-batch. Checks the config as a dry run does and refuses (util::InputError) a CPU
// run without a budget and a budget below what the run holds before it trains (its data and initial state).
// A dry run stops there. Then, under the budget (measure::MemoryBudgetScope), searches each runnable mode's
// largest batch (search_largest_batch over train::Experiment::fit_batch, every out-of-memory caught
// and its memory released), makes the folder, and runs each mode alone at its largest batch into
// <folder>/<mode>, under the budget still, writing max_batch.json, max_batch.csv and max_batch.md after each.
MaxBatchOutcome run_max_batch(const MaxBatchRequest& request);

}  // namespace ampbench::max_batch
