#include "amp/block_scaled_linear.h"

#include <c10/core/impl/LocalDispatchKeySet.h>

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

// The operand as the product takes it: emulated, in its own dtype.
torch::Tensor emulated(const torch::Tensor& operand, LinearOperand role, const Float8Settings& settings,
                       std::optional<at::Generator> generator) {
  return emulate_operand(operand, role, settings.recipe, settings.block, std::move(generator))
      .values.to(operand.scalar_type());
}

void save_settings(AutogradContext* ctx, const Float8Settings& settings,
                   std::optional<at::Generator> generator) {
  ctx->saved_data["recipe"] = static_cast<int64_t>(settings.recipe);
  ctx->saved_data["mx_rounding"] = static_cast<int64_t>(settings.block.mx_rounding);
  ctx->saved_data["hadamard"] = settings.block.nvfp4_hadamard;
  ctx->saved_data["tiles_2d"] = settings.block.nvfp4_weight_tiles_2d;
  ctx->saved_data["stochastic"] = settings.block.nvfp4_stochastic;
  ctx->saved_data["generator"] = generator ? c10::IValue(*generator) : c10::IValue();
}

Float8Settings saved_settings(AutogradContext* ctx) {
  Float8Settings settings;
  settings.recipe = static_cast<LinearRecipe>(ctx->saved_data["recipe"].toInt());
  settings.block.mx_rounding = static_cast<ScaleRounding>(ctx->saved_data["mx_rounding"].toInt());
  settings.block.nvfp4_hadamard = ctx->saved_data["hadamard"].toBool();
  settings.block.nvfp4_weight_tiles_2d = ctx->saved_data["tiles_2d"].toBool();
  settings.block.nvfp4_stochastic = ctx->saved_data["stochastic"].toBool();
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
    const auto w = weight.to(input.scalar_type());
    if (record) {
      record->input_amax = rows.abs().max();
      record->weight_amax = w.abs().max();
    }
    auto out = at::mm(emulated(rows, LinearOperand::input, settings, generator),
                      emulated(w, LinearOperand::weight, settings, generator).t());
    auto shape = input.sizes().vec();
    shape.back() = weight.size(0);
    return at::_unsafe_view(out, shape);
  }

  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    const auto saved = ctx->get_saved_variables();
    const auto& input = saved[0];
    const auto settings = saved_settings(ctx);
    const auto generator = saved_generator(ctx);
    const auto go = grads[0].reshape({-1, saved[1].size(0)}).contiguous();
    const auto rows = input.reshape({-1, input.size(-1)});
    const auto w = saved[1].to(go.scalar_type());
    // dx = dy W, blocked along the output features.
    auto grad_input =
        at::mm(emulated(go, LinearOperand::grad_output, settings, generator),
               emulated(w.t().contiguous(), LinearOperand::weight_transposed, settings, generator).t())
            .view(input.sizes());
    // dW = dy^T x, blocked along the rows.
    auto grad_weight =
        at::mm(emulated(go.t().contiguous(), LinearOperand::grad_output_transposed, settings, generator),
               emulated(rows.t().contiguous(), LinearOperand::input_transposed, settings, generator).t());
    if (auto& capsule = ctx->saved_data["record"]; capsule.isCapsule())
      c10::static_intrusive_pointer_cast<Float8LayerRecord>(capsule.toCapsule())->grad_output_amax =
          go.abs().max();
    return {grad_input, grad_weight, torch::Tensor(), torch::Tensor(), torch::Tensor()};
  }
};

}  // namespace

BlockQuantized emulate_operand(const torch::Tensor& operand, LinearOperand role, LinearRecipe recipe,
                               const BlockRecipeOptions& options, std::optional<at::Generator> generator) {
  switch (recipe) {
    case LinearRecipe::mxfp8:
      return quantize_mxfp8(operand, options.mx_rounding);
    case LinearRecipe::nvfp4: {
      const auto transformed =
          feeds_weight_gradient(role) && options.nvfp4_hadamard ? hadamard_16(operand) : operand;
      const bool stochastic = is_gradient(role) && options.nvfp4_stochastic;
      return quantize_nvfp4(transformed, is_weight(role) && options.nvfp4_weight_tiles_2d,
                            stochastic ? std::move(generator) : std::nullopt);
    }
    case LinearRecipe::blockwise:
      return quantize_fp8_blocks(operand, is_weight(role) ? kFp8BlockTile : 1);
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
