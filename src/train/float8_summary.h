#pragma once

#include <torch/torch.h>

#include "amp/float8_linear.h"
#include "train/trial_record.h"

namespace ampbench::train {

// What the linear layers of `model` did in float8 so far, in the order they first ran, named by their
// weights' parameter names. Reads the last step's amaxes from the device: call it after a timed region.
Float8Summary summarize_float8(amp::LinearRecipe recipe, const amp::Float8Layers& layers,
                               const torch::nn::Module& model);

}  // namespace ampbench::train
