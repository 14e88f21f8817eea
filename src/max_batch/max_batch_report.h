#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "amp/precision_mode.h"
#include "max_batch/batch_search.h"
#include "report/summary_figures.h"

namespace ampbench::max_batch {

// One mode's largest batch within the budget, and its timed run at that batch.
struct MaxBatchMode {
  amp::PrecisionMode mode = amp::PrecisionMode::fp32;
  BatchSearch search;
  std::optional<int64_t> peak_bytes;  // every byte held at the largest batch's peak (its search try)
  std::optional<report::SummaryFigures> figures;  // its run at the largest batch, from that run's report
  std::string run_folder;                         // that run's, relative to the max-batch folder; empty: none
  std::optional<std::string> not_measured;        // why there are no figures
};

struct MaxBatchReport {
  std::string name;    // the experiment's
  std::string device;  // "cpu", "cuda:0"
  int64_t budget_bytes = 0;
  std::string budget_source;  // "--memory-budget" or "free GPU memory"
  int64_t train_samples = 0;
  // The largest batch the data and the config allow: an epoch of the training set keeps the steps the
  // config's warm-up and gradient accumulation need.
  int64_t batch_limit = 0;
  int64_t steps_needed = 1;  // per epoch, at the least
  std::vector<MaxBatchMode> modes;
  bool complete() const;  // every mode searched and measured
};

// A line per mode: its largest batch and what bounds it; then for each mode other than fp32, how its batch
// and its throughput there compare with fp32's ("bf16 fits 1.91x fp32's batch (488 against 256) and runs it
// at 1020 samples/s [1000, 1040], against fp32's 812 [...] at its own").
std::vector<std::string> max_batch_lines(const MaxBatchReport& report);

}  // namespace ampbench::max_batch
