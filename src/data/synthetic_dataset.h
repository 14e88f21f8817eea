#pragma once

#include <cstdint>
#include <vector>

#include <torch/torch.h>

#include "data/dataset.h"

namespace ampbench::data {

struct SyntheticDataOptions {
  int64_t train_samples = 2048;
  int64_t val_samples = 512;
  std::vector<int64_t> shape{3, 32, 32};
  int64_t classes = 10;
  uint64_t seed = 0;
};

// A learnable data set. Each sample has a few latent factors z ~ N(0, 1); its input is a fixed, seeded
// mix of patterns weighted by z, plus unit Gaussian noise; its label comes from a fixed, seeded linear
// teacher on z (argmax over classes). The label is thus written visibly into the input, a model can
// learn it, and validation loss means something. The same options give the same data, bit for bit.
Dataset make_synthetic_dataset(const SyntheticDataOptions& options, const torch::Device& device);

}  // namespace ampbench::data
