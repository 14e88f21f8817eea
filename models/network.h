#pragma once

#include <cstdint>
#include <vector>

#include <torch/torch.h>

#include "models/input_spec.h"

namespace ampbench::models {

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
