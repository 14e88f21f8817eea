#include "amp/block_scaled_linear.h"

#include <c10/core/impl/LocalDispatchKeySet.h>

#include "amp/block_scaled_kernels.h"
#include "amp/linear_observer.h"
#include "amp/record_scopes.h"
#include "util/enum_names.h"

namespace ampbench::amp {
namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

bool is_weight(LinearOperand role) {
  return role == LinearOperand::weight || role == LinearOperand::weight_transposed;
}
bool is_gradient(LinearOperand role) {
  return role == LinearOperand::grad_output || role == LinearOperand::grad_output_transposed;
}
bool feeds_weight_gradient(LinearOperand role) {
  return role == LinearOperand::grad_output_transposed || role == LinearOperand::input_transposed;
}

// The operand quantized as the product takes it. An observer (linear_observer.h) sees what the quantization
// did, against the operand as quantized (after the Hadamard transform, where there is one).
BlockQuantized quantized(const torch::Tensor& operand, LinearOperand role, const Float8Settings& settings,
                         std::optional<at::Generator> generator, const void* key) {
  // The kernels multiply the codes: the dequantized values are the emulation's and an observer's.
  const bool dequantize = !settings.kernels || (key && observing_linear_layers());
  auto q = emulate_operand(operand, role, settings.recipe, settings.block, std::move(generator), dequantize);
  if (key && observing_linear_layers()) {
    const bool transformed = transformed_first(role, settings.recipe, settings.block);
    observe_operand(key, std::string(to_string(role)), transformed ? hadamard_16(operand) : operand, q);
  }
  return q;
}

// NVFP4's product emulated: the block-scaled elements are exact in bf16, so their product in fp32 is the
// bf16 product with fp32 accumulation; the two per-tensor scales multiply it, as the kernels apply them.
torch::Tensor emulated_nvfp4_product(const BlockQuantized& a, int64_t a_tile_rows, const BlockQuantized& b,
                                     int64_t b_tile_rows, c10::ScalarType dtype) {
  torch::Tensor a_values, b_values;
  {
    OperandScope scaling;
    a_values = nvfp4_block_values(a, a_tile_rows);
    b_values = nvfp4_block_values(b, b_tile_rows);
  }
  return (at::mm(a_values, b_values.t()) * (a.tensor_scale * b.tensor_scale)).to(dtype);
}

// The other formats' product emulated: the dequantized values multiplied in `dtype` with fp32 accumulation,
// as torchao's emulated kernels compute it.
torch::Tensor emulated_product(const BlockQuantized& a, const BlockQuantized& b, c10::ScalarType dtype) {
  torch::Tensor a_values, b_values;
  {
    OperandScope casting;
    a_values = a.values.to(dtype);
    b_values = b.values.to(dtype);
  }
  return at::mm(a_values, b_values.t());
}

// a @ b^T of two operands quantized along K, in `dtype`: on the device's kernel (settings.kernels), or
// emulated, under a user scope that tells the profiler it is the format's product. Only the product is the
// layer's: what feeds it is the format's, unseen by an observer (OperandScope).
torch::Tensor product(const BlockQuantized& a, LinearOperand a_role, const BlockQuantized& b,
                      LinearOperand b_role, const Float8Settings& settings, c10::ScalarType dtype) {
  const int64_t a_tile_rows = tile_rows(a_role, settings.recipe, settings.block);
  const int64_t b_tile_rows = tile_rows(b_role, settings.recipe, settings.block);
  if (settings.kernels) {
    KernelOperand a_packed, b_packed;
    {
      OperandScope packing;
      a_packed = kernel_operand(a, settings.recipe, a_tile_rows);
      b_packed = kernel_operand(b, settings.recipe, b_tile_rows);
    }
    return kernel_product(a_packed, b_packed, dtype);
  }
  RECORD_USER_SCOPE(kEmulatedProductMarker);
  if (settings.recipe == LinearRecipe::nvfp4)
    return emulated_nvfp4_product(a, a_tile_rows, b, b_tile_rows, dtype);
  return emulated_product(a, b, dtype);
}

void save_settings(AutogradContext* ctx, const Float8Settings& settings,
                   std::optional<at::Generator> generator) {
  ctx->saved_data["recipe"] = static_cast<int64_t>(settings.recipe);
  ctx->saved_data["mx_rounding"] = static_cast<int64_t>(settings.block.mx_rounding);
  ctx->saved_data["hadamard"] = settings.block.nvfp4_hadamard;
  ctx->saved_data["tiles_2d"] = settings.block.nvfp4_weight_tiles_2d;
  ctx->saved_data["stochastic"] = settings.block.nvfp4_stochastic;
  ctx->saved_data["kernels"] = settings.kernels;
  ctx->saved_data["generator"] = generator ? c10::IValue(*generator) : c10::IValue();
}

Float8Settings saved_settings(AutogradContext* ctx) {
  Float8Settings settings;
  settings.recipe = static_cast<LinearRecipe>(ctx->saved_data["recipe"].toInt());
  settings.block.mx_rounding = static_cast<ScaleRounding>(ctx->saved_data["mx_rounding"].toInt());
  settings.block.nvfp4_hadamard = ctx->saved_data["hadamard"].toBool();
  settings.block.nvfp4_weight_tiles_2d = ctx->saved_data["tiles_2d"].toBool();
  settings.block.nvfp4_stochastic = ctx->saved_data["stochastic"].toBool();
  settings.kernels = ctx->saved_data["kernels"].toBool();
  return settings;
}

std::optional<at::Generator> saved_generator(AutogradContext* ctx) {
  const auto& saved = ctx->saved_data["generator"];
  return saved.isGenerator() ? std::optional<at::Generator>(saved.toGenerator()) : std::nullopt;
}

// The three products with their operands emulated, structured as Float8Matmul (float8_linear.cpp): the
// high-precision input and weight are saved and quantized again in backward, each along its product's
// contraction dimension.
class BlockScaledMatmul : public torch::autograd::Function<BlockScaledMatmul> {
 public:
  static torch::Tensor forward(AutogradContext* ctx, const torch::Tensor& input, const torch::Tensor& weight,
                               Float8Settings settings, std::optional<at::Generator> generator,
                               c10::intrusive_ptr<Float8LayerRecord> record) {
    // Autocast would recast the operands; the emulation's casts are explicit.
    c10::impl::ExcludeDispatchKeyGuard no_autocast(c10::autocast_dispatch_keyset);
    ctx->save_for_backward({input, weight});
    save_settings(ctx, settings, generator);
    ctx->saved_data["record"] = record ? c10::IValue::make_capsule(record) : c10::IValue();
    const auto rows = input.reshape({-1, input.size(-1)});
    const void* key = record ? record->key : nullptr;
    BlockQuantized x, w;
    {
      OperandScope preparing;  // the operands' preparation: values of the emulation, not of the layer
      const auto weight_in_dtype = weight.to(input.scalar_type());
      if (record) {
        record->input_amax = rows.abs().max();
        record->weight_amax = weight_in_dtype.abs().max();
      }
      x = quantized(rows, LinearOperand::input, settings, generator, key);
      w = quantized(weight_in_dtype, LinearOperand::weight, settings, generator, key);
    }
    auto out = product(x, LinearOperand::input, w, LinearOperand::weight, settings, input.scalar_type());
    auto shape = input.sizes().vec();
    shape.back() = weight.size(0);
    return at::_unsafe_view(out, shape);
  }

  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    const auto saved = ctx->get_saved_variables();
    const auto& input = saved[0];
    const auto settings = saved_settings(ctx);
    const auto generator = saved_generator(ctx);
    auto& capsule = ctx->saved_data["record"];
    const auto record = capsule.isCapsule()
                            ? c10::static_intrusive_pointer_cast<Float8LayerRecord>(capsule.toCapsule())
                            : c10::intrusive_ptr<Float8LayerRecord>();
    const void* key = record ? record->key : nullptr;
    // dx = dy W, blocked along the output features; dW = dy^T x, blocked along the rows.
    // Only the gradients autograd asks for (not a first layer's input's), as at::linear's backward.
    const bool input_grad = ctx->needs_input_grad(0), weight_grad = ctx->needs_input_grad(1);
    BlockQuantized dy, w_t, dy_t, x_t;
    {
      OperandScope preparing;
      const auto go = grads[0].reshape({-1, saved[1].size(0)}).contiguous();
      const auto rows = input.reshape({-1, input.size(-1)});
      const auto w = saved[1].to(go.scalar_type());
      if (record) record->grad_output_amax = go.abs().max();
      if (input_grad) {
        dy = quantized(go, LinearOperand::grad_output, settings, generator, key);
        w_t = quantized(w.t().contiguous(), LinearOperand::weight_transposed, settings, generator, key);
      }
      if (weight_grad) {
        dy_t =
            quantized(go.t().contiguous(), LinearOperand::grad_output_transposed, settings, generator, key);
        x_t = quantized(rows.t().contiguous(), LinearOperand::input_transposed, settings, generator, key);
      }
    }
    const auto dtype = grads[0].scalar_type();
    using Role = LinearOperand;
    torch::Tensor grad_input, grad_weight;
    if (input_grad) {
      grad_input =
          product(dy, Role::grad_output, w_t, Role::weight_transposed, settings, dtype).view(input.sizes());
    }
    if (weight_grad)
      grad_weight = product(dy_t, Role::grad_output_transposed, x_t, Role::input_transposed, settings, dtype);
    return {grad_input, grad_weight, torch::Tensor(), torch::Tensor(), torch::Tensor()};
  }
};

}  // namespace

std::string_view to_string(LinearOperand role) {
  static constexpr util::EnumNames<LinearOperand, 6> kNames{
      {{LinearOperand::input, "input"},
       {LinearOperand::weight, "weight"},
       {LinearOperand::grad_output, "grad_output"},
       {LinearOperand::weight_transposed, "weight_transposed"},
       {LinearOperand::grad_output_transposed, "grad_output_transposed"},
       {LinearOperand::input_transposed, "input_transposed"}}};
  return util::name_of(kNames, role);
}

bool transformed_first(LinearOperand role, LinearRecipe recipe, const BlockRecipeOptions& options) {
  return recipe == LinearRecipe::nvfp4 && feeds_weight_gradient(role) && options.nvfp4_hadamard;
}

int64_t tile_rows(LinearOperand role, LinearRecipe recipe, const BlockRecipeOptions& options) {
  if (!is_weight(role)) return 1;
  if (recipe == LinearRecipe::blockwise) return kFp8BlockTile;
  return recipe == LinearRecipe::nvfp4 && options.nvfp4_weight_tiles_2d ? kNvfp4Block : 1;
}

BlockQuantized emulate_operand(const torch::Tensor& operand, LinearOperand role, LinearRecipe recipe,
                               const BlockRecipeOptions& options, std::optional<at::Generator> generator,
                               bool dequantize) {
  switch (recipe) {
    case LinearRecipe::mxfp8:
      return quantize_mxfp8(operand, options.mx_rounding, dequantize);
    case LinearRecipe::nvfp4: {
      const auto transformed = transformed_first(role, recipe, options) ? hadamard_16(operand) : operand;
      const bool stochastic = is_gradient(role) && options.nvfp4_stochastic;
      return quantize_nvfp4(transformed, tile_rows(role, recipe, options) > 1,
                            stochastic ? std::move(generator) : std::nullopt, dequantize);
    }
    case LinearRecipe::blockwise:
      return quantize_fp8_blocks(operand, tile_rows(role, recipe, options), dequantize);
    case LinearRecipe::tensorwise:
    case LinearRecipe::rowwise:
      break;
  }
  TORCH_CHECK(false, "the ", to_string(recipe), " recipe is not block-scaled");
}

torch::Tensor block_scaled_matmul(const torch::Tensor& input, const torch::Tensor& weight,
                                  const Float8Settings& settings, std::optional<at::Generator> generator,
                                  const c10::intrusive_ptr<Float8LayerRecord>& record) {
  return BlockScaledMatmul::apply(input, weight, settings, std::move(generator), record);
}

}  // namespace ampbench::amp
