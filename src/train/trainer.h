#pragma once

#include <optional>

#include <torch/torch.h>

#include "amp/precision_mode.h"
#include "data/dataset.h"
#include "measure/memory_probe.h"
#include "models/network.h"
#include "train/fault_injection.h"
#include "train/progress.h"
#include "train/trainer_options.h"
#include "train/trial_record.h"

namespace ampbench::train {

// Trains one model in one precision mode for the configured epochs and measures each epoch.
//
// Each step is a TrainingStep (autocast forward + loss, backward outside it, fp16 through a GradScaler,
// stepping only on gradient-accumulation boundaries). The timed region of an epoch holds only this
// training work: losses, skipped steps and the scale stay on the device and are read after it closes,
// and the device is synchronised at its two ends. Validation runs after, untimed.
//
// A trial stops early, keeping its finished epochs, when its loss becomes NaN or inf (status
// diverged, checked after each epoch's timed region) or when a stop was requested by a signal (status
// interrupted, checked at each step boundary).
class Trainer {
 public:
  Trainer(TrainerOptions options, const data::Dataset& dataset, const torch::Device& device,
          std::optional<FaultInjection> fault = std::nullopt);

  // Fills the record's epochs, fp16 loss-scale trace, status, master-weight check and data-order
  // checksum; memory and the initial weights' checksum are the caller's. `probe`, when given, is told
  // when the first optimizer step is done (static memory). `progress`, when given, is updated as steps
  // finish.
  void run(amp::PrecisionMode mode, models::Network& model, TrialRecord& record,
           measure::MemoryProbe* probe = nullptr, Progress* progress = nullptr) const;

  // Trains the steps that bring a trial to its peak memory (every step up to the first optimizer step and
  // one more, whose activations and gradients come on top of the weights and the optimizer's state) in a
  // trial's own state: its step, per-step buffers and timer, so that what it holds at that peak is what a
  // trial at this batch size holds, not an estimate of it (--max-batch's fit, batch_fit.h). An epoch
  // shorter than that wraps round. Errors propagate (c10::Error; out of memory among them).
  void train_first_steps(amp::PrecisionMode mode, models::Network& model) const;

  const TrainerOptions& options() const { return options_; }

 private:
  TrainerOptions options_;
  const data::Dataset& dataset_;
  torch::Device device_;
  std::optional<FaultInjection> fault_;
};

}  // namespace ampbench::train
