#pragma once

#include <optional>

#include <ATen/core/Generator.h>
#include <torch/torch.h>

#include "amp/block_formats.h"
#include "amp/float8_linear.h"

namespace ampbench::amp {

// The operands of a linear layer's three products, y = x W^T, dx = dy W and dW = dy^T x, each blocked along
// its product's contraction dimension: x and W along the input features, dy and W^T along the output
// features, dy^T and x^T along the rows (tokens).
enum class LinearOperand {
  input,
  weight,
  grad_output,
  weight_transposed,
  grad_output_transposed,
  input_transposed
};

// One operand as the recipe's emulation holds it, quantized along its last dimension (a matrix whose last
// dimension is a multiple of the recipe's block): MXFP8 in 1 x 32 blocks; NVFP4 in 1 x 16 blocks (16 x 16
// tiles for a weight with weight_tiles_2d, the same tiles for W and W^T), its weight-gradient operands
// through the Hadamard transform first (nvfp4_hadamard) and its gradients rounded stochastically from
// `generator` (nvfp4_stochastic); blockwise fp8 in 1 x 128 blocks, a weight in 128 x 128 tiles. Without
// `dequantize`, its values are left undefined.
BlockQuantized emulate_operand(const torch::Tensor& operand, LinearOperand role, LinearRecipe recipe,
                               const BlockRecipeOptions& options, std::optional<at::Generator> generator,
                               bool dequantize = true);
// The rows of the tiles emulate_operand quantizes the operand in: 128 for a blockwise fp8 weight, 16 for an
// NVFP4 weight with 2-D scales, 1 otherwise.
int64_t tile_rows(LinearOperand role, LinearRecipe recipe, const BlockRecipeOptions& options);
// Whether emulate_operand puts the operand through the Hadamard transform before it quantizes it.
bool transformed_first(LinearOperand role, LinearRecipe recipe, const BlockRecipeOptions& options);
std::string_view to_string(LinearOperand role);

// The block-scaled product: input @ weight^T in input's dtype, each of the layer's three products in the
// settings' recipe, its operands quantized by emulate_operand: with settings.kernels on the device's kernels
// (block_scaled_kernels.h), else emulated (dequantized and multiplied in the input's dtype with fp32
// accumulation, as torchao's emulated kernels do); differentiable in both. The weight takes
// the input's dtype first (autocast's, with fp32 master weights). `record` (may be null) keeps the amaxes.
torch::Tensor block_scaled_matmul(const torch::Tensor& input, const torch::Tensor& weight,
                                  const Float8Settings& settings, std::optional<at::Generator> generator,
                                  const c10::intrusive_ptr<Float8LayerRecord>& record = {});

}  // namespace ampbench::amp
