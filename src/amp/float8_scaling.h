#pragma once

#include <optional>
#include <string_view>

#include <torch/torch.h>

#include "amp/linear_recipe.h"

namespace ampbench::amp {

// The format a matrix product's operand is cast to: e4m3 for inputs and weights, and for output
// gradients under rowwise; e5m2 for output gradients under tensorwise.
enum class Float8Operand { input, weight, grad_output };
c10::ScalarType float8_format(LinearRecipe recipe, Float8Operand operand);

// The largest absolute value of `x`, over the whole tensor (tensorwise) or along `dim` with that dimension
// kept (rowwise). Computed on x's device and never read to the host.
torch::Tensor float8_amax(const torch::Tensor& x, LinearRecipe recipe, int64_t dim);

// The scale that maps `amax` onto the format's largest finite value: max / max(amax, 1e-12), in fp64 and
// then fp32 as torchao computes it; rowwise rounds it down to a power of two. An inf amax gives 0 and a
// NaN amax NaN, so a non-finite tensor makes a non-finite product instead of a silently finite one.
torch::Tensor float8_scale(const torch::Tensor& amax, c10::ScalarType format, LinearRecipe recipe);

// x * scale in fp32, clamped to the format's finite range (a saturating cast on every LibTorch version),
// then cast to the format.
torch::Tensor to_float8(const torch::Tensor& x, const torch::Tensor& scale, c10::ScalarType format);

// (a / a_scale) @ (b / b_scale) in `out_dtype`, through at::_scaled_mm (given `a` row-major and `b`
// column-major, as it needs on a GPU, whatever their layouts), where `a` and `b` are float8 and their
// scales are the ones they were cast with: one each (tensorwise), or
// a's per row [M, 1] and b's per column [1, N] (rowwise). As torchao does: rowwise without fast
// accumulation multiplies the scales in afterwards, and rowwise products come out in bf16 first.
torch::Tensor scaled_matmul(const torch::Tensor& a, const torch::Tensor& a_scale, const torch::Tensor& b,
                            const torch::Tensor& b_scale, c10::ScalarType out_dtype, bool fast_accumulation);

}  // namespace ampbench::amp
