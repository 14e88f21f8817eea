#include "train/model_state.h"

#include <cstdio>

namespace ampbench::train {

std::vector<torch::Tensor> state_tensors(const torch::nn::Module& module) {
  auto tensors = module.parameters();
  for (const auto& buffer : module.buffers()) tensors.push_back(buffer);
  return tensors;
}

ModelState ModelState::capture(const torch::nn::Module& module) {
  ModelState state;
  for (const auto& t : state_tensors(module)) state.tensors_.push_back(t.detach().clone());
  return state;
}

void ModelState::restore_into(torch::nn::Module& module) const {
  torch::NoGradGuard no_grad;
  auto targets = state_tensors(module);
  TORCH_CHECK(targets.size() == tensors_.size(), "model state has ", tensors_.size(), " tensors, module has ",
              targets.size());
  for (size_t i = 0; i < targets.size(); ++i) targets[i].copy_(tensors_[i]);
}

std::string checksum(const std::vector<torch::Tensor>& tensors) {
  uint64_t hash = 1469598103934665603ULL;
  for (const auto& t : tensors) {
    auto bytes = t.detach().to(torch::kCPU).contiguous();
    const auto* data = static_cast<const unsigned char*>(bytes.data_ptr());
    for (size_t i = 0; i < bytes.nbytes(); ++i) {
      hash ^= data[i];
      hash *= 1099511628211ULL;
    }
  }
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(hash));
  return text;
}

bool parameters_are_fp32(const torch::nn::Module& module) {
  for (const auto& p : module.parameters()) {
    if (p.is_floating_point() && p.scalar_type() != torch::kFloat32) return false;
  }
  return true;
}

}  // namespace ampbench::train
