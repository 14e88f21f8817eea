#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include <ATen/core/Generator.h>
#include <torch/custom_class.h>
#include <torch/torch.h>

#include "amp/float8_scaling.h"
#include "amp/precision_mode.h"

namespace ampbench::amp {

// The dimensions of one linear layer's output product: rows (the input's leading dimensions together),
// input features and output features.
struct LinearShape {
  int64_t rows = 0;
  int64_t in_features = 0;
  int64_t out_features = 0;
};

// Whether the recipe takes the layer's products: no dimension empty, every one a multiple of the recipe's
// (dimension_multiple: at::_scaled_mm's 16, or the block).
bool float8_takes(const LinearShape& shape, LinearRecipe recipe);

// Why a layer of this shape stays in bf16, for the reports: "16 x 32 -> 10: not all multiples of 16".
std::string why_not_float8(const LinearShape& shape, LinearRecipe recipe);

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
  bool kept_by_filter = false;            // the layer filter keeps it in bf16 (every call a bf16 call)
  torch::Tensor input_amax, weight_amax, grad_output_amax;
};

// The records of a trial's linear layers, one per layer, in the order the layers first ran. A layer is
// its key, which stays the same while it lives (a reference model's weight parameter, an exported program's
// module): a weight computed anew each call (weight_norm, a merged LoRA) is one layer, not one per call, and
// no record holds a weight.
class Float8Layers {
 public:
  // `seed` seeds the stochastic rounding of a recipe's gradients (NVFP4's), drawn in the order the steps run.
  explicit Float8Layers(uint64_t seed = 0);
  // The layer's record, made on its first call from its weight's sizes and `name`.
  c10::intrusive_ptr<Float8LayerRecord> record_for(const void* key, const std::string& name,
                                                   const torch::Tensor& weight);
  const std::vector<c10::intrusive_ptr<Float8LayerRecord>>& records() const { return records_; }
  at::Generator stochastic_rounding() const { return generator_; }

 private:
  at::Generator generator_;
  std::vector<c10::intrusive_ptr<Float8LayerRecord>> records_;
  std::unordered_map<const void*, size_t> index_;  // key -> its record in records_
};

// How the linear layers inside a Float8Scope compute their products. `scale_multiplier` is 1 except when a
// test plants a broken float8 scale.
struct Float8Settings {
  LinearRecipe recipe = LinearRecipe::tensorwise;
  double scale_multiplier = 1.0;
  BlockRecipeOptions block = {};
  // The layers the layer filter keeps in bf16, by the key Float8Layers gives them (kept_in_bf16); none when
  // the filter keeps none.
  std::shared_ptr<const std::unordered_set<const void*>> kept_in_bf16 = {};
  // A block-scaled recipe's products on the device's own kernels (block_kernel_probe.h says where), not
  // emulated.
  bool kernels = false;
};

// The settings of a mode's Float8Scope: its row's recipe with `block`'s options, the float8 scales
// multiplied by `scale_multiplier`; nullopt for the modes whose linear layers run in autocast's dtype.
std::optional<Float8Settings> float8_settings(PrecisionMode mode, const BlockRecipeOptions& block = {},
                                              double scale_multiplier = 1.0);

// The keys of the layers `filter` keeps in bf16, from `layers`: a model's layers in the order they first ran
// (a forward pass of the model under a Float8Scope with these layers).
std::shared_ptr<const std::unordered_set<const void*>> kept_in_bf16(const Float8Layers& layers,
                                                                    const LayerFilter& filter);

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
// when the product's dimensions are multiples of the recipe's (dimension_multiple) and the layer filter does
// not keep the layer, its three products run in the recipe: the float8 recipes cast the input (in autocast's
// dtype) and the fp32 weight to float8 with dynamic scales and multiply through at::_scaled_mm, as torchao's
// Float8Linear does; the block-scaled ones are emulated (block_scaled_linear.h). Otherwise at::linear.
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
