#pragma once

#include <vector>

#include <torch/torch.h>

namespace ampbench::optim {

// Scales the gradients in place so that their global L2 norm is at most max_norm, and returns the norm
// before clipping as a 0-dim device tensor. Unlike torch::nn::utils::clip_grad_norm_, which returns a
// double, it never syncs with the host, so it can run inside a timed region (same math as PyTorch's
// foreach implementation: coefficient max_norm / (norm + 1e-6), clamped to 1).
torch::Tensor clip_grad_norm_(const std::vector<torch::Tensor>& grads, double max_norm);

}  // namespace ampbench::optim
