#include "optim/grad_clipping.h"

namespace ampbench::optim {

torch::Tensor clip_grad_norm_(const std::vector<torch::Tensor>& grads, double max_norm) {
  torch::NoGradGuard no_grad;
  if (grads.empty()) return torch::zeros({});
  auto norms = at::_foreach_norm(grads, 2);
  auto total_norm = torch::linalg_vector_norm(torch::stack(norms), 2);
  auto clip_coef = (max_norm / (total_norm + 1e-6)).clamp_max(1.0);
  at::_foreach_mul_(grads, clip_coef);
  return total_norm;
}

}  // namespace ampbench::optim
