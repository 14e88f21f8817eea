#pragma once

#include <cstdint>
#include <vector>

#include <torch/torch.h>

namespace ampbench::data {

// A classification data set staged on the training device once, before any timing, so that batches
// are cut there by index and no host-to-device copy happens inside a timed region.
struct Dataset {
  torch::Tensor train_inputs;  // [N, ...sample_shape], fp32
  torch::Tensor train_labels;  // [N], int64
  torch::Tensor val_inputs;
  torch::Tensor val_labels;
  std::vector<int64_t> sample_shape;
  int64_t num_classes = 0;

  int64_t train_size() const { return train_inputs.size(0); }
  int64_t val_size() const { return val_inputs.size(0); }
};

}  // namespace ampbench::data
