#pragma once

#include <cstdint>
#include <vector>

namespace ampbench::models {

// What the data gives a model to build itself for.
struct InputSpec {
  std::vector<int64_t> sample_shape;  // one sample, without the batch dimension: [C, H, W] or [features]
  int64_t num_classes = 0;            // or the vocabulary size
  bool tokens = false;                // int64 token ids [context] for a language model, rather than features
  bool label_per_sequence = false;    // tokens with one label per sequence (a sequence classifier's data)
};

}  // namespace ampbench::models
