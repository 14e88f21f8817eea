#pragma once

#include <torch/torch.h>

namespace ampbench::train {

// Cross-entropy computed in fp32 whatever the logits' dtype: autocast's CPU and CUDA policies do not
// agree on every softmax/loss op across LibTorch versions (CPU autocast leaves log_softmax in bf16),
// and the loss must not be computed in 16 bits. Mean over the batch, or the sum when `sum` is set.
// Logits [N, T, V] (a language model) are scored at every position against labels [N, T].
torch::Tensor classification_loss(const torch::Tensor& logits, const torch::Tensor& labels, bool sum = false);

}  // namespace ampbench::train
