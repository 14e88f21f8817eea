#include "train/classification_loss.h"

namespace ampbench::train {

torch::Tensor classification_loss(const torch::Tensor& logits, const torch::Tensor& labels, bool sum) {
  namespace F = torch::nn::functional;
  auto options = F::CrossEntropyFuncOptions();
  if (sum) options.reduction(torch::kSum);
  if (logits.dim() > 2) {  // a language model: every position predicts its next token
    return F::cross_entropy(logits.flatten(0, -2).to(torch::kFloat32), labels.flatten(), options);
  }
  return F::cross_entropy(logits.to(torch::kFloat32), labels, options);
}

}  // namespace ampbench::train
