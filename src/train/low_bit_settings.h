#pragma once

#include <optional>

#include <torch/torch.h>

#include "amp/float8_linear.h"
#include "models/network.h"
#include "train/trainer_options.h"

namespace ampbench::train {

// The Float8Scope settings of `mode` for `model`: the row's recipe with the config's block-recipe options,
// a block-scaled recipe on the kernels of `inputs`' device where it has them (amp::kernels_refusal), and,
// when the config's layer filter keeps layers in bf16, which of this model's layers it keeps. Those are found
// by one untimed forward pass of `inputs` in eval mode (no gradient, no state changed) that lists the layers
// in the order they run. nullopt for a mode whose linear layers run in autocast's dtype.
std::optional<amp::Float8Settings> low_bit_settings(amp::PrecisionMode mode, const TrainerOptions& options,
                                                    models::Network& model, const torch::Tensor& inputs);

}  // namespace ampbench::train
