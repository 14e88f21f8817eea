#pragma once

#include <functional>
#include <memory>

#include <torch/torch.h>

#include "amp/mode_support.h"
#include "config/experiment_config.h"
#include "data/dataset.h"
#include "measure/memory_probe.h"
#include "report/report.h"
#include "train/fault_injection.h"
#include "train/progress.h"

namespace ampbench::train {

// Runs one experiment fairly: the data is made and staged once, the initial weights are drawn once from
// the seed and copied bit for bit into every mode's model, and each mode sees the same batch order.
// Peak memory is measured per trial, from a fresh peak. A trial that diverges or runs out of memory is
// reported with its status and the others still run; a stop request ends the run after the current
// step, and the report says it is partial.
class Experiment {
 public:
  using ModeDone = std::function<void(const report::RunReport& so_far)>;

  // Makes or reads the data and stages it on the device: a data file that is missing or malformed, or
  // data too small for the batch size, throws config::ConfigError here, before anything is written.
  Experiment(config::ExperimentConfig config, const torch::Device& device,
             std::optional<FaultInjection> fault = std::nullopt);
  // Runs `repeats` rounds of the configured modes, interleaved (fp32, tf32, fp16, bf16, fp32, ...) so that
  // machine drift spreads over all modes; every trial starts from the same initial state. After each
  // trial, on_mode_done sees the report so far (so the caller can write it and a crash later loses
  // nothing).
  report::RunReport run(const ModeDone& on_mode_done = {}, Progress* progress = nullptr);
  // Optimizer-and-loss steps in one trial: its epochs times the batches in an epoch.
  int64_t steps_per_trial() const;
  // The configured modes that can run on this device, in order (the others are reported as skipped).
  std::vector<amp::PrecisionMode> runnable_modes() const;

 private:
  // Each configured mode, in order, with whether it can run on this device and what to say about it.
  std::vector<std::pair<amp::PrecisionMode, amp::ModeSupport>> mode_support() const;

  config::ExperimentConfig config_;
  torch::Device device_;
  std::optional<FaultInjection> fault_;
  // The probe before the data: on the CPU it installs the counting allocator, which must see every tensor.
  std::unique_ptr<measure::MemoryProbe> probe_;
  data::Dataset dataset_;
};

}  // namespace ampbench::train
