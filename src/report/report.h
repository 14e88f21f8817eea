#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "amp/precision_mode.h"
#include "measure/environment.h"
#include "measure/memory_probe.h"

namespace ampbench::report {

// The report model: what a run measured, rendered by the json/csv/console renderers. An optional that
// is empty means "undefined here" and is written as null / an empty cell, never as 0.

constexpr int kSchemaVersion = 1;

struct EpochRecord {
  int64_t epoch = 0;   // 1-based
  double seconds = 0;  // timed wall time of the epoch, device synchronised at both ends
  int64_t timed_steps = 0;
  int64_t timed_samples = 0;
  double samples_per_second = 0;
  double train_loss = 0;  // mean over the epoch's steps (warm-up included: it is training all the same)
  double val_loss = 0;
  double val_accuracy = 0;
  std::optional<double> loss_scale;      // fp16: the GradScaler's scale at the end of the epoch
  std::optional<int64_t> skipped_steps;  // fp16: optimizer steps skipped for inf/NaN gradients
};

struct ModeRecord {
  amp::PrecisionMode mode = amp::PrecisionMode::fp32;
  std::string status = "ok";
  std::vector<EpochRecord> epochs;
  measure::MemoryReading memory;
  bool master_weights_fp32 = true;
  std::string initial_weights_checksum;  // equal across modes: the same initial weights
  std::string data_order_checksum;       // equal across modes: the same batches in the same order
  int64_t warmup_steps_excluded = 0;
};

// One mode against the fp32 baseline (empty when fp32 was not run).
struct ModeSummary {
  amp::PrecisionMode mode = amp::PrecisionMode::fp32;
  double samples_per_second = 0;         // over the epochs the comparison uses
  std::vector<int64_t> epochs_compared;  // the first epoch is left out when there are several
  std::optional<double> speedup_vs_fp32;
  std::optional<double> memory_ratio_vs_fp32;
  std::optional<double> val_loss_delta_vs_fp32;
};

struct RunReport {
  nlohmann::json config;
  measure::Environment environment;
  std::vector<ModeRecord> modes;
  std::vector<ModeSummary> summary;
  bool complete = false;  // false while modes are still running
};

}  // namespace ampbench::report
