#pragma once

#include <torch/torch.h>

#include "models/network.h"
#include "train/fault_injection.h"
#include "train/training_step.h"

namespace ampbench::train {

// The planted faults that change a step's numbers, applied alike by a trial and by its divergence replay
// (fault_injection.h says what each does). Each is for a step the fault fires at.

// Before the step's forward: an fp8 mode's broken scales, a planted overflow's scaled weight matrix.
void plant_before_forward(const FaultInjection& fault, TrainingStep& step, models::Network& model);

// Into the step's loss: a NaN (nan, flaky), or the square root whose backward makes a NaN (nangrad).
torch::Tensor plant_in_loss(const FaultInjection& fault, const torch::Tensor& loss, models::Network& model);

// The parameter a planted overflow or NaN gradient acts on: the model's last weight matrix.
torch::Tensor planted_weight(models::Network& model);

}  // namespace ampbench::train
