#include "amp/weight_format.h"

namespace ampbench::amp {

void cast_to_weight_dtype(torch::nn::Module& model, PrecisionMode mode) {
  const auto dtype = recipe_of(mode).weights;
  if (dtype == c10::ScalarType::Float) return;
  // Only floating state changes format: LibTorch's Module::to(dtype) would cast integer and bool buffers
  // too (a batch norm's step count, an index table), which PyTorch-Python's Module.to leaves alone.
  // set_data keeps each tensor's identity, so what holds it (an exported program's state) sees the change.
  torch::NoGradGuard no_grad;
  for (auto& tensor : model.parameters()) {
    if (tensor.is_floating_point()) tensor.set_data(tensor.to(dtype));
  }
  for (auto& tensor : model.buffers()) {
    if (tensor.is_floating_point()) tensor.set_data(tensor.to(dtype));
  }
}

torch::Tensor cast_inputs(const torch::Tensor& inputs, PrecisionMode mode) {
  const auto weights = recipe_of(mode).weights;
  if (weights == c10::ScalarType::Float || !inputs.is_floating_point()) return inputs;
  return inputs.to(weights);
}

}  // namespace ampbench::amp
