#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include <torch/custom_class.h>
#include <torch/torch.h>

#include "amp/float8_scaling.h"
#include "amp/precision_mode.h"

namespace ampbench::amp {

// The float8 recipe a mode trains with; nullopt for the modes without float8.
std::optional<Float8Recipe> float8_recipe(PrecisionMode mode);

// The dimensions of one linear layer's output product: rows (the input's leading dimensions together),
// input features and output features.
struct LinearShape {
  int64_t rows = 0;
  int64_t in_features = 0;
  int64_t out_features = 0;
};

// Whether at::_scaled_mm takes the layer's products: no dimension empty, every one a multiple of 16.
bool float8_takes(const LinearShape& shape);

// Why a layer of this shape stays in bf16, for the reports: "16 x 32 -> 10: not all multiples of 16".
std::string why_not_float8(const LinearShape& shape);

// What one linear layer did in float8 over a trial. Its amax tensors are the last step's, held on the
// device (never read to the host while a step runs): scalars under tensorwise, one per row under rowwise.
struct Float8LayerRecord : torch::CustomClassHolder {
  const void* key = nullptr;  // what identifies the layer (Float8Layers::record_for); never dereferenced
  std::string name;           // the caller's name for it; empty: its weight parameter names it (key)
  int64_t in_features = 0;
  int64_t out_features = 0;
  int64_t float8_calls = 0;
  int64_t bf16_calls = 0;                 // calls whose shapes at::_scaled_mm cannot take
  std::optional<LinearShape> bf16_shape;  // the shape of the last such call
  torch::Tensor input_amax, weight_amax, grad_output_amax;
};

// The records of a trial's linear layers, one per layer, in the order the layers first ran. A layer is
// its key, which stays the same while it lives (a reference model's weight parameter, an exported program's
// module): a weight computed anew each call (weight_norm, a merged LoRA) is one layer, not one per call, and
// no record holds a weight.
class Float8Layers {
 public:
  // The layer's record, made on its first call from its weight's sizes and `name`.
  c10::intrusive_ptr<Float8LayerRecord> record_for(const void* key, const std::string& name,
                                                   const torch::Tensor& weight);
  const std::vector<c10::intrusive_ptr<Float8LayerRecord>>& records() const { return records_; }

 private:
  std::vector<c10::intrusive_ptr<Float8LayerRecord>> records_;
  std::unordered_map<const void*, size_t> index_;  // key -> its record in records_
};

// How the linear layers inside a Float8Scope scale their operands. `scale_multiplier` is 1 except when a
// test plants a broken scale.
struct Float8Settings {
  Float8Recipe recipe = Float8Recipe::tensorwise;
  double scale_multiplier = 1.0;
};

// The settings of a mode's Float8Scope: its recipe with the scales multiplied by `scale_multiplier`;
// nullopt for the modes without float8.
std::optional<Float8Settings> float8_settings(PrecisionMode mode, double scale_multiplier = 1.0);

// RAII region, opened beside the autocast scope around forward + loss, in which amp::linear runs its
// three matrix products in float8. Thread-local, as autocast is; backward needs no scope, as the autograd
// function carries what it needs. Without settings (a mode without float8) it closes any outer region.
class Float8Scope {
 public:
  Float8Scope(std::optional<Float8Settings> settings, Float8Layers* layers = nullptr);
  ~Float8Scope();

  Float8Scope(const Float8Scope&) = delete;
  Float8Scope& operator=(const Float8Scope&) = delete;

  // The innermost region open on this thread, when it has float8 on; else nullptr.
  static const Float8Scope* active();
  const Float8Settings& settings() const { return *settings_; }
  Float8Layers* layers() const { return layers_; }

 private:
  const Float8Scope* previous_;
  std::optional<Float8Settings> settings_;
  Float8Layers* layers_;
};

// A linear layer, input @ weight^T + bias, as every reference model computes it. Inside a Float8Scope,
// when the product's dimensions are multiples of 16 (at::_scaled_mm's rule), the input (in autocast's
// dtype) and the fp32 weight are cast to float8 with dynamic scales and the output, input-gradient and
// weight-gradient products run in float8, as torchao's Float8Linear runs them; otherwise at::linear.
// `layer` names a layer whose weight may be computed each call (an exported program's module, the string's
// address its key); without it the weight is a parameter, which is the key and names it.
torch::Tensor linear(const torch::Tensor& input, const torch::Tensor& weight, const torch::Tensor& bias = {},
                     const std::string* layer = nullptr);

// The float8 product alone, for the tests: input @ weight^T with `settings`, output in input's dtype,
// differentiable in both; `record` (may be null) keeps the amaxes.
torch::Tensor float8_matmul(const torch::Tensor& input, const torch::Tensor& weight,
                            const Float8Settings& settings,
                            const c10::intrusive_ptr<Float8LayerRecord>& record = {});

}  // namespace ampbench::amp
