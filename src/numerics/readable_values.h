#pragma once

#include <optional>

#include <ATen/ATen.h>

namespace ampbench::numerics {

// A tensor's values as the observers read them (isfinite, isinf, abs, max): the arithmetic floating types
// and complex as they are; the float8 formats widened to fp32, which holds them exactly (LibTorch's
// isfinite and isinf refuse float8); nothing for a type whose elements LibTorch does no arithmetic on (float4
// pairs, bits) or that cannot be inf or NaN (integers, bool: a block format's codes and scales).
inline std::optional<at::Tensor> readable_values(const at::Tensor& t) {
  const auto type = t.scalar_type();
  if (c10::isFloat8Type(type)) return t.to(at::kFloat);
  if (c10::isComplexType(type) || type == at::kDouble || type == at::kFloat || type == at::kHalf ||
      type == at::kBFloat16)
    return t;
  return std::nullopt;
}

}  // namespace ampbench::numerics
