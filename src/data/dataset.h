#pragma once

#include <cstdint>
#include <vector>

#include <torch/torch.h>

namespace ampbench::data {

// A data set staged on the training device once, before any timing, so that batches are cut there by
// index and no host-to-device copy happens inside a timed region. One too large for the device stays in
// host memory (staged = false), and each batch is then copied over as training needs it.
struct Dataset {
  torch::Tensor train_inputs;  // [N, ...sample_shape], fp32
  torch::Tensor train_labels;  // [N], int64
  torch::Tensor val_inputs;
  torch::Tensor val_labels;
  std::vector<int64_t> sample_shape;
  int64_t num_classes = 0;  // or the vocabulary size
  bool staged = true;       // on the training device; false: in host memory

  int64_t train_size() const { return train_inputs.size(0); }
  int64_t val_size() const { return val_inputs.size(0); }
};

}  // namespace ampbench::data
