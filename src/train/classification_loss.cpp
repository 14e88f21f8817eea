#include "train/classification_loss.h"

namespace ampbench::train {

torch::Tensor classification_loss(const torch::Tensor& logits, const torch::Tensor& labels, bool sum) {
  namespace F = torch::nn::functional;
  auto options = F::CrossEntropyFuncOptions();
  if (sum) options.reduction(torch::kSum);
  return F::cross_entropy(logits.to(torch::kFloat32), labels, options);
}

}  // namespace ampbench::train
