#pragma once

#include <torch/torch.h>

#include "amp/float8_linear.h"
#include "amp/precision_mode.h"
#include "data/dataset.h"
#include "models/network.h"
#include "train/trainer_options.h"

namespace ampbench::train {

struct Evaluation {
  double loss;      // mean cross-entropy per prediction
  double accuracy;  // of the predictions: samples, or tokens for a language model
};

// The model on the whole validation set, in the mode it trained in (autocast forward + loss, the linear
// layers under `float8`, the training step's settings), untimed.
Evaluation evaluate(models::Network& model, amp::PrecisionMode mode, const data::Dataset& dataset,
                    const TrainerOptions& options, const torch::Device& device,
                    const std::optional<amp::Float8Settings>& float8);

}  // namespace ampbench::train
