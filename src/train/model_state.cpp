#include "train/model_state.h"

#include "util/fnv1a.h"

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
  uint64_t hash = util::fnv1a(nullptr, 0);
  for (const auto& t : tensors) {
    auto bytes = t.detach().to(torch::kCPU).contiguous();
    hash = util::fnv1a(bytes.data_ptr(), bytes.nbytes(), hash);
  }
  return util::hex64(hash);
}

int64_t trainable_elements(const torch::nn::Module& module) {
  int64_t elements = 0;
  for (const auto& p : module.parameters()) {
    if (p.requires_grad()) elements += p.numel();
  }
  return elements;
}

int64_t frozen_elements(const torch::nn::Module& module) {
  int64_t elements = 0;
  for (const auto& p : module.parameters()) {
    if (!p.requires_grad()) elements += p.numel();
  }
  return elements;
}

int64_t buffer_elements(const torch::nn::Module& module) {
  int64_t elements = 0;
  for (const auto& b : module.buffers()) elements += b.numel();
  return elements;
}

bool parameters_are(const torch::nn::Module& module, c10::ScalarType dtype) {
  for (const auto& p : module.parameters()) {
    if (p.is_floating_point() && p.scalar_type() != dtype) return false;
  }
  return true;
}

}  // namespace ampbench::train
