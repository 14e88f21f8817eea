#pragma once

#include <functional>
#include <memory>
#include <optional>

#include <torch/torch.h>

#include "amp/precision_mode.h"
#include "data/dataset.h"
#include "models/network.h"
#include "train/divergence.h"
#include "train/fault_injection.h"
#include "train/progress.h"
#include "train/trainer_options.h"

namespace ampbench::train {

// What a replay repeats: the trial's mode, options (its seed, so its batch order), data, planted fault and
// trial number, from a fresh model in the trial's initial state.
struct ReplaySetup {
  amp::PrecisionMode mode = amp::PrecisionMode::fp32;
  const TrainerOptions* options = nullptr;
  const data::Dataset* dataset = nullptr;
  torch::Device device = torch::kCPU;
  std::function<std::shared_ptr<models::Network>()> fresh_model;
  std::optional<FaultInjection> fault;
  int64_t trial = 1;
  Progress* progress = nullptr;  // where the replay's steps are shown
};

// Replays the trial twice, outside any timed region: first with every step's loss, gradients (in a mode
// without a GradScaler, where a non-finite gradient is a fault rather than a skipped step) and weights read
// back, to find the first step at which anything became non-finite and whether the loss diverged where the
// trial's did; then up to that step again, running it (and the target's skipped steps) under the observer
// (numerics/op_observer.h), which names the first op that made inf or NaN. A c10::Error in the replay is
// recorded in the diagnosis.
DivergenceDiagnosis diagnose_divergence(const DivergenceTarget& target, const ReplaySetup& setup);

}  // namespace ampbench::train
