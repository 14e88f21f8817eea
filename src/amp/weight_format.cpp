#include "amp/weight_format.h"

namespace ampbench::amp {

void cast_to_weight_dtype(torch::nn::Module& model, PrecisionMode mode) {
  if (is_pure_bf16(mode)) model.to(weight_dtype(mode));
}

torch::Tensor cast_inputs(const torch::Tensor& inputs, PrecisionMode mode) {
  if (!is_pure_bf16(mode) || !inputs.is_floating_point()) return inputs;
  return inputs.to(weight_dtype(mode));
}

}  // namespace ampbench::amp
