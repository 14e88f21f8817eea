#include "amp/float8_scaling.h"

#include <ATen/ops/_scaled_mm.h>

#include "util/enum_names.h"

namespace ampbench::amp {
namespace {

// torchao's floor on amax: an all-zero tensor gets a large finite scale, not a division by zero.
constexpr double kAmaxFloor = 1e-12;

double largest_finite(c10::ScalarType format) {
  return format == c10::ScalarType::Float8_e5m2 ? 57344.0 : 448.0;
}

bool rowwise_scales(const torch::Tensor& a_scale, const torch::Tensor& b_scale) {
  return a_scale.dim() == 2 && b_scale.dim() == 2;
}

}  // namespace

std::string_view to_string(LinearRecipe recipe) {
  static constexpr util::EnumNames<LinearRecipe, 5> kNames{{{LinearRecipe::tensorwise, "tensorwise"},
                                                            {LinearRecipe::rowwise, "rowwise"},
                                                            {LinearRecipe::mxfp8, "mxfp8"},
                                                            {LinearRecipe::nvfp4, "nvfp4"},
                                                            {LinearRecipe::blockwise, "blockwise"}}};
  return util::name_of(kNames, recipe);
}

int64_t dimension_multiple(LinearRecipe recipe) {
  switch (recipe) {
    case LinearRecipe::mxfp8:
      return 32;
    case LinearRecipe::blockwise:
      return 128;
    case LinearRecipe::tensorwise:
    case LinearRecipe::rowwise:
    case LinearRecipe::nvfp4:
      return 16;
  }
  return 16;
}

c10::ScalarType float8_format(LinearRecipe recipe, Float8Operand operand) {
  const bool wide = recipe == LinearRecipe::tensorwise && operand == Float8Operand::grad_output;
  return wide ? c10::ScalarType::Float8_e5m2 : c10::ScalarType::Float8_e4m3fn;
}

torch::Tensor float8_amax(const torch::Tensor& x, LinearRecipe recipe, int64_t dim) {
  return recipe == LinearRecipe::tensorwise ? x.abs().max() : x.abs().amax({dim}, /*keepdim=*/true);
}

torch::Tensor float8_scale(const torch::Tensor& amax, c10::ScalarType format, LinearRecipe recipe) {
  auto scale = (largest_finite(format) / amax.to(torch::kDouble).clamp_min(kAmaxFloor)).to(torch::kFloat);
  return recipe == LinearRecipe::rowwise ? torch::exp2(torch::floor(torch::log2(scale))) : scale;
}

torch::Tensor to_float8(const torch::Tensor& x, const torch::Tensor& scale, c10::ScalarType format) {
  const double max = largest_finite(format);
  return (x.to(torch::kFloat) * scale).clamp(-max, max).to(format);
}

torch::Tensor scaled_matmul(const torch::Tensor& a, const torch::Tensor& a_scale, const torch::Tensor& b,
                            const torch::Tensor& b_scale, c10::ScalarType out_dtype, bool fast_accumulation) {
  auto a_inverse = a_scale.reciprocal(), b_inverse = b_scale.reciprocal();
  const bool rowwise = rowwise_scales(a_scale, b_scale);
  std::optional<torch::Tensor> afterwards;
  if (rowwise && !fast_accumulation) {
    // The rowwise kernel is slow without fast accumulation; the tensorwise one and a multiply are not.
    afterwards = a_inverse * b_inverse;
    a_inverse = torch::ones({}, a_inverse.options());
    b_inverse = a_inverse;
  }
  // The rowwise kernel writes bf16 only.
  const auto kernel_dtype = rowwise ? c10::ScalarType::BFloat16 : out_dtype;
  // at::_scaled_mm's layout rule on a GPU: the first operand row-major, the second column-major. Free
  // for operands already laid out so.
  auto out =
      at::_scaled_mm(a.contiguous(), b.t().contiguous().t(), a_inverse, b_inverse, /*bias=*/std::nullopt,
                     /*scale_result=*/std::nullopt, kernel_dtype, fast_accumulation);
  if (afterwards) out.mul_(*afterwards);
  return out.scalar_type() == out_dtype ? out : out.to(out_dtype);
}

}  // namespace ampbench::amp
