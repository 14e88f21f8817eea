#pragma once

#include <cstdint>
#include <string>

#include <torch/torch.h>

#include "amp/precision_mode.h"
#include "data/dataset.h"
#include "models/network.h"
#include "train/trainer_options.h"

namespace ampbench::train {

// Whether one mode's training fits in memory at one batch size, and what it held at its peak.
struct BatchFit {
  int64_t batch = 0;
  bool fits = false;
  // Every byte held on the device at the peak (the data and the initial state too, as a memory budget
  // counts them), up to where memory ran out when it did not fit.
  int64_t peak_bytes = 0;
  std::string detail;  // the out-of-memory error's first line when it did not fit
};

// Trains the steps that bring a trial to its peak memory, with `options`' batch size: every step up to the
// first optimizer step (which makes the optimizer's state) and one more, whose activations and gradients
// come on top of the weights and that state. Errors propagate (c10::Error; out of memory among them).
void train_first_steps(const TrainerOptions& options, amp::PrecisionMode mode, models::Network& model,
                       const data::Dataset& dataset, const torch::Device& device);

}  // namespace ampbench::train
