#pragma once

#include <string>
#include <vector>

#include <torch/torch.h>

namespace ampbench::train {

// A deep copy of a module's parameters and buffers, in registration order: the one initial state every
// precision mode starts from.
class ModelState {
 public:
  static ModelState capture(const torch::nn::Module& module);
  // Copies the state into a module of the same architecture (bit-for-bit).
  void restore_into(torch::nn::Module& module) const;

 private:
  std::vector<torch::Tensor> tensors_;
};

// All parameters then all buffers, in registration order.
std::vector<torch::Tensor> state_tensors(const torch::nn::Module& module);

// 64-bit FNV-1a over the raw bytes of the tensors: equal checksums mean bit-identical contents.
std::string checksum(const std::vector<torch::Tensor>& tensors);

// The elements of its trainable parameters (what its gradients and optimizer state are sized by).
int64_t trainable_elements(const torch::nn::Module& module);

// The elements of its frozen parameters (requires_grad off: never trained) and of its buffers.
int64_t frozen_elements(const torch::nn::Module& module);
int64_t buffer_elements(const torch::nn::Module& module);

// True when every floating-point parameter is of `dtype` (fp32: the master weights were never cast down).
bool parameters_are(const torch::nn::Module& module, c10::ScalarType dtype);

}  // namespace ampbench::train
