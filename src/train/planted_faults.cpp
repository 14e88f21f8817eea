#include "train/planted_faults.h"

#include <limits>

namespace ampbench::train {

torch::Tensor planted_weight(models::Network& model) {
  torch::Tensor last;
  for (const auto& parameter : model.parameters()) {
    if (parameter.dim() >= 2) last = parameter;
  }
  TORCH_CHECK(last.defined(), "the planted fault needs a weight matrix, and the model has none");
  return last;
}

void plant_before_forward(const FaultInjection& fault, TrainingStep& step, models::Network& model) {
  if (fault.kind == FaultInjection::Kind::fp8_scale) step.plant_float8_scale_factor(kPlantedScaleFactor);
  if (fault.kind != FaultInjection::Kind::overflow) return;
  torch::NoGradGuard no_grad;
  auto weight = planted_weight(model);
  weight.mul_(kPlantedWeightMagnitude / weight.abs().max());  // no read-back: it may be a timed step
}

torch::Tensor plant_in_loss(const FaultInjection& fault, const torch::Tensor& loss, models::Network& model) {
  switch (fault.kind) {
    case FaultInjection::Kind::nan:
    case FaultInjection::Kind::flaky_nan:
      return loss * std::numeric_limits<double>::quiet_NaN();
    case FaultInjection::Kind::nan_gradient: {
      const auto weight = planted_weight(model);
      return loss + 0 * torch::sqrt(weight - weight.detach()).sum();
    }
    default:
      return loss;
  }
}

}  // namespace ampbench::train
