#pragma once

#include <cstdint>
#include <vector>

#include <torch/torch.h>

namespace ampbench::models {

// What the data gives a model to build itself for.
struct InputSpec {
  std::vector<int64_t> sample_shape;  // one sample, without the batch dimension: [C, H, W] or [features]
  int64_t num_classes = 0;            // or the vocabulary size
  bool tokens = false;                // int64 token ids [context] for a language model, rather than features
  bool label_per_sequence = false;    // tokens with one label per sequence (a sequence classifier's data)
};

// A classifier: inputs [N, ...sample_shape] to logits [N, num_classes]; or a language model: token ids
// [N, context] to next-token logits [N, context, vocab].
class Network : public torch::nn::Module {
 public:
  virtual torch::Tensor forward(const torch::Tensor& inputs) = 0;
  // Elements of the tensor constants torch.export lifted out of an exported model's code (held as buffers
  // here, so that they move with the model, but not the model's state); 0 for every other model.
  virtual int64_t lifted_constant_elements() const { return 0; }
};

}  // namespace ampbench::models
