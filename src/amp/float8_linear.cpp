#include "amp/float8_linear.h"

#include <unordered_map>

#include <ATen/CPUGeneratorImpl.h>
#include <ATen/SequenceNumber.h>
#include <ATen/autocast_mode.h>
#include <ATen/record_function.h>
#include <c10/core/impl/LocalDispatchKeySet.h>

#include "amp/block_scaled_linear.h"
#include "amp/linear_observer.h"
#include "amp/record_scopes.h"

namespace ampbench::amp {
namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

thread_local const Float8Scope* active_scope = nullptr;

// One operand of a product, cast along its rows: its float8 data, the scales it was cast with and
// the amax they came from.
struct Operand {
  torch::Tensor data, scale, amax;
  // The operand as the second factor of a product: column-major data, scales per column.
  Operand t() const { return {data.t(), scale.dim() == 2 ? scale.t() : scale, amax}; }
};

Operand cast_rows(const torch::Tensor& x, Float8Operand role, const Float8Settings& settings) {
  const auto format = float8_format(settings.recipe, role);
  auto amax = float8_amax(x, settings.recipe, /*dim=*/-1);
  auto scale = float8_scale(amax, format, settings.recipe);
  if (settings.scale_multiplier != 1.0) scale = scale * settings.scale_multiplier;
  return {to_float8(x, scale, format), scale, amax};
}

torch::Tensor product(const Operand& a, const Operand& b, c10::ScalarType out_dtype, bool fast_accumulation) {
  return scaled_matmul(a.data, a.scale, b.data, b.scale, out_dtype, fast_accumulation);
}

// A low-bit product as one op for the observers (the numerics pass's, the divergence diagnosis's): they
// count or check its result, not the ops inside it (a rowwise kernel's unscaled product, an emulated
// product's scales, a bias's cast). In forward it reads the layer's weight, so they name its output and its
// backward (the autograd node it makes next, by sequence number) after the layer, where the ops inside it
// read only copies of the weight; in backward they name it by the node it runs in. Without a RecordFunction
// callback (the timed loop) the scope costs a check and builds nothing.
template <typename Product>
torch::Tensor as_one_op(const Product& product, const torch::Tensor& x, const torch::Tensor& weight) {
  RECORD_FUNCTION(kLowBitProductOp, std::vector<c10::IValue>({x, weight}), at::sequence_number::peek());
  auto out = product();
  if (guard.isActive() && guard.needsOutputs()) guard.setOutputs(std::vector<c10::IValue>{out});
  return out;
}

// The three products of a linear layer, structured as torchao's matmul_with_hp_or_float8_args: the
// high-precision input and weight are saved and cast again in backward, along the axes each product
// needs. Only the output's product uses fast accumulation, as in torchao's recipes.
class Float8Matmul : public torch::autograd::Function<Float8Matmul> {
 public:
  static torch::Tensor forward(AutogradContext* ctx, const torch::Tensor& input, const torch::Tensor& weight,
                               Float8Settings settings, c10::intrusive_ptr<Float8LayerRecord> record) {
    // Autocast would cast the float8 operands back to 16-bit; the casts here are explicit.
    c10::impl::ExcludeDispatchKeyGuard no_autocast(c10::autocast_dispatch_keyset);
    ctx->save_for_backward({input, weight});
    ctx->saved_data["recipe"] = static_cast<int64_t>(settings.recipe);
    ctx->saved_data["scale_multiplier"] = settings.scale_multiplier;
    ctx->saved_data["record"] = record ? c10::IValue::make_capsule(record) : c10::IValue();
    const auto rows = input.reshape({-1, input.size(-1)});
    Operand x, w;
    {
      OperandScope preparing;  // the casts: values of the recipe, not the layer's
      x = cast_rows(rows, Float8Operand::input, settings);
      w = cast_rows(weight, Float8Operand::weight, settings);
    }
    if (record) {
      record->input_amax = x.amax;
      record->weight_amax = w.amax;
    }
    auto out = product(x, w.t(), input.scalar_type(), /*fast_accumulation=*/true);
    auto shape = input.sizes().vec();
    shape.back() = weight.size(0);
    // Not a view: autograd refuses in-place ops on views made inside a custom function.
    return at::_unsafe_view(out, shape);
  }

  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    const auto saved = ctx->get_saved_variables();
    const auto& input = saved[0];
    const auto& weight = saved[1];
    const Float8Settings settings{static_cast<LinearRecipe>(ctx->saved_data["recipe"].toInt()),
                                  ctx->saved_data["scale_multiplier"].toDouble()};
    const auto go = grads[0].reshape({-1, weight.size(0)});
    const auto rows = input.reshape({-1, input.size(-1)});
    // grad_input = grad_output @ weight, scaled along grad_output's rows and weight's columns; grad_weight =
    // grad_output^T @ input, scaled along both operands' columns.
    // Only the gradients autograd asks for (not a first layer's input's), as at::linear's backward.
    const bool input_grad = ctx->needs_input_grad(0), weight_grad = ctx->needs_input_grad(1);
    Operand g, w, gt, xt;
    {
      OperandScope preparing;  // the casts: values of the recipe, not the layer's
      g = cast_rows(go.contiguous(), Float8Operand::grad_output, settings);  // its amax is the record's
      if (input_grad) w = cast_rows(weight.t().contiguous(), Float8Operand::weight, settings);
      if (weight_grad) {
        gt = cast_rows(go.t().contiguous(), Float8Operand::grad_output, settings);
        xt = cast_rows(rows.t().contiguous(), Float8Operand::input, settings);
      }
    }
    torch::Tensor grad_input, grad_weight;
    if (input_grad) {
      grad_input = as_one_op([&] { return product(g, w.t(), go.scalar_type(), /*fast_accumulation=*/false); },
                             go, weight)
                       .view(input.sizes());
    }
    if (weight_grad) {
      grad_weight = as_one_op(
          [&] { return product(gt, xt.t(), go.scalar_type(), /*fast_accumulation=*/false); }, go, weight);
    }
    if (auto& capsule = ctx->saved_data["record"]; capsule.isCapsule()) {
      c10::static_intrusive_pointer_cast<Float8LayerRecord>(capsule.toCapsule())->grad_output_amax = g.amax;
    }
    return {grad_input, grad_weight, torch::Tensor(), torch::Tensor()};
  }
};

}  // namespace

bool float8_takes(const LinearShape& shape, LinearRecipe recipe) {
  // An empty product has nothing to scale: its amax would be undefined.
  for (int64_t size : {shape.rows, shape.in_features, shape.out_features}) {
    if (size <= 0 || size % dimension_multiple(recipe) != 0) return false;
  }
  return true;
}

std::string why_not_float8(const LinearShape& shape, LinearRecipe recipe) {
  const bool empty = shape.rows <= 0 || shape.in_features <= 0 || shape.out_features <= 0;
  return std::to_string(shape.rows) + " x " + std::to_string(shape.in_features) + " -> " +
         std::to_string(shape.out_features) +
         (empty ? ": empty" : ": not all multiples of " + std::to_string(dimension_multiple(recipe)));
}

std::optional<Float8Settings> float8_settings(PrecisionMode mode, const BlockRecipeOptions& block,
                                              double scale_multiplier) {
  const auto recipe = recipe_of(mode).linear_recipe;
  if (!recipe) return std::nullopt;
  return Float8Settings{*recipe, scale_multiplier, block, {}};
}

std::shared_ptr<const std::unordered_set<const void*>> kept_in_bf16(const Float8Layers& layers,
                                                                    const LayerFilter& filter) {
  auto kept = std::make_shared<std::unordered_set<const void*>>();
  const auto& records = layers.records();
  const auto count = static_cast<int64_t>(records.size());
  for (int64_t i = 0; i < count; ++i) {
    const auto& r = *records[i];
    const bool small = r.in_features < filter.min_features || r.out_features < filter.min_features;
    if (i < filter.keep_first || i >= count - filter.keep_last || small) kept->insert(r.key);
  }
  return kept;
}

Float8Layers::Float8Layers(uint64_t seed) : generator_(at::make_generator<at::CPUGeneratorImpl>(seed)) {}

c10::intrusive_ptr<Float8LayerRecord> Float8Layers::record_for(const void* key, const std::string& name,
                                                               const torch::Tensor& weight) {
  const auto [found, fresh] = index_.try_emplace(key, records_.size());
  if (!fresh) return records_[found->second];
  auto record = c10::make_intrusive<Float8LayerRecord>();
  record->key = key;
  record->name = name;
  record->out_features = weight.size(0);
  record->in_features = weight.size(1);
  records_.push_back(record);
  return record;
}

Float8Scope::Float8Scope(std::optional<Float8Settings> settings, Float8Layers* layers)
    : previous_(active_scope), settings_(settings), layers_(layers) {
  active_scope = settings ? this : nullptr;
}

Float8Scope::~Float8Scope() { active_scope = previous_; }

const Float8Scope* Float8Scope::active() { return active_scope; }

torch::Tensor float8_matmul(const torch::Tensor& input, const torch::Tensor& weight,
                            const Float8Settings& settings,
                            const c10::intrusive_ptr<Float8LayerRecord>& record) {
  return Float8Matmul::apply(input, weight, settings, record);
}

namespace {

// The layer inside a Float8Scope: in bf16 when the filter keeps it or the recipe cannot take its shapes,
// else its three products in the recipe.
torch::Tensor low_bit_linear(const torch::Tensor& input, const torch::Tensor& weight,
                             const torch::Tensor& bias, const void* key, const std::string* layer) {
  const auto device = input.device().type();
  torch::Tensor x = input;
  if (at::autocast::is_autocast_enabled(device)) {
    OperandScope preparing;  // autocast's cast, as inside at::linear
    x = input.to(at::autocast::get_autocast_dtype(device));
  }
  const LinearShape shape{x.size(-1) > 0 ? x.numel() / x.size(-1) : 0, weight.size(1), weight.size(0)};
  auto* layers = active_scope->layers();
  auto record =
      layers ? layers->record_for(key, layer ? *layer : "", weight) : c10::intrusive_ptr<Float8LayerRecord>();
  const auto& settings = active_scope->settings();
  const bool kept = settings.kept_in_bf16 && settings.kept_in_bf16->contains(key);
  if (kept || !float8_takes(shape, settings.recipe)) {
    if (record) {
      ++record->bf16_calls;
      record->kept_by_filter = kept;
      if (!kept) record->bf16_shape = shape;  // the text is made after training, not in the timed loop
    }
    return at::linear(input, weight, bias);
  }
  if (record) ++record->float8_calls;
  auto product = [&] {
    return is_block_scaled(settings.recipe)
               ? block_scaled_matmul(x, weight, settings,
                                     layers ? std::optional(layers->stochastic_rounding()) : std::nullopt,
                                     record)
               : float8_matmul(x, weight, settings, record);
  };
  return as_one_op(
      [&] {
        auto out = product();
        return bias.defined() ? out + bias.to(out.scalar_type()) : out;
      },
      x, weight);
}

}  // namespace

torch::Tensor linear(const torch::Tensor& input, const torch::Tensor& weight, const torch::Tensor& bias,
                     const std::string* layer) {
  const void* key = layer ? static_cast<const void*>(layer) : weight.unsafeGetTensorImpl();
  auto out = active_scope ? low_bit_linear(input, weight, bias, key, layer) : at::linear(input, weight, bias);
  if (observing_linear_layers()) observe_output(key, weight, layer, out);
  return out;
}

}  // namespace ampbench::amp
