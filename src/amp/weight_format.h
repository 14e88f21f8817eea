#pragma once

#include <torch/torch.h>

#include "amp/precision_mode.h"

namespace ampbench::amp {

// The pure bf16 modes train the model in bf16: its floating parameters and buffers are cast once, from the
// run's fp32 initial state, so every mode starts from the same state (here rounded); integer and bool state
// keeps its type. Other modes leave the model in fp32.
void cast_to_weight_dtype(torch::nn::Module& model, PrecisionMode mode);

// A batch as the mode's model takes it: floating inputs (images, features) in the weights' format where the
// weights are not fp32 (the pure modes, where no autocast casts them); token ids and every other mode's
// inputs as they are.
torch::Tensor cast_inputs(const torch::Tensor& inputs, PrecisionMode mode);

}  // namespace ampbench::amp
