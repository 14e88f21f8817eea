#pragma once

#include <optional>

#include <torch/torch.h>

#include "amp/precision_mode.h"
#include "data/dataset.h"
#include "models/network.h"
#include "passes/pass_context.h"
#include "train/trainer_options.h"

namespace ampbench::train {

// The gradient of the first training batch's loss at the initial weights, computed as `mode` trains
// (autocast forward + loss; for fp16, the loss scaled and the gradients unscaled by the GradScaler, its
// scale backed off from the initial one until they are finite), flattened into one fp32 vector in host
// memory. nullopt when a gradient stays inf/NaN. The random generators are seeded with the options' seed
// first, so that every mode draws the same dropout masks. Untimed: it runs before the trials.
std::optional<torch::Tensor> first_batch_gradient(amp::PrecisionMode mode, models::Network& model,
                                                  const TrainerOptions& options, const data::Dataset& dataset,
                                                  const torch::Device& device);

// How far each of `runnable` modes' first gradient is from fp32's, before any training, into
// result.grad_cosine_vs_fp32. A mode whose gradient fails (out of memory, an error) has no cosine: its trials
// meet the error again and are marked for it.
void measure_first_gradients(const PassContext& context, const std::vector<amp::PrecisionMode>& runnable,
                             ExperimentResult& result);

// cos(a, b) of two vectors of one length, accumulated in double; nullopt where it is undefined (a zero
// vector has no direction) or not finite.
std::optional<double> gradient_cosine(const torch::Tensor& a, const torch::Tensor& b);

}  // namespace ampbench::train
