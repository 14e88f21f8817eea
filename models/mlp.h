#pragma once

#include <cstdint>

#include "models/network.h"
#include "models/registry.h"

namespace ampbench::models {

struct MlpOptions {
  MlpOptions(int64_t in_features, int64_t num_classes)
      : in_features_(in_features), num_classes_(num_classes) {}
  TORCH_ARG(int64_t, in_features);
  TORCH_ARG(int64_t, num_classes);
  TORCH_ARG(int64_t, width) = 512;  // units in each hidden layer
  TORCH_ARG(int64_t, depth) = 2;    // hidden layers
};

// Flatten, then `depth` x (Linear + ReLU) of `width` units, then a Linear classifier.
class MlpImpl : public Network {
 public:
  explicit MlpImpl(const MlpOptions& options);
  torch::Tensor forward(const torch::Tensor& inputs) override;

 private:
  torch::nn::Sequential layers_;
};

ModelEntry mlp_entry();

}  // namespace ampbench::models
