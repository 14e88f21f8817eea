#include "numerics/formats.h"

#include <cmath>
#include <limits>

namespace ampbench::numerics {

std::optional<double> largest_finite(c10::ScalarType dtype) {
  switch (dtype) {
    case at::kHalf:
      return double(std::numeric_limits<c10::Half>::max());
    case at::kBFloat16:
      return double(std::numeric_limits<c10::BFloat16>::max());
    case at::kFloat:
    case at::kComplexFloat:
      return double(std::numeric_limits<float>::max());
    case at::kDouble:
    case at::kComplexDouble:
      return std::numeric_limits<double>::max();
    case at::kFloat8_e4m3fn:
      return double(std::numeric_limits<c10::Float8_e4m3fn>::max());
    case at::kFloat8_e5m2:
      return double(std::numeric_limits<c10::Float8_e5m2>::max());
    default:
      return std::nullopt;
  }
}

std::optional<double> smallest_normal(c10::ScalarType dtype) {
  switch (dtype) {
    case at::kHalf:
      return double(std::numeric_limits<c10::Half>::min());
    case at::kBFloat16:
      return double(std::numeric_limits<c10::BFloat16>::min());
    case at::kFloat:
      return double(std::numeric_limits<float>::min());
    case at::kDouble:
      return std::numeric_limits<double>::min();
    default:
      return std::nullopt;
  }
}

std::optional<double> epsilon(c10::ScalarType dtype) {
  switch (dtype) {
    case at::kHalf:
      return double(std::numeric_limits<c10::Half>::epsilon());
    case at::kBFloat16:
      return double(std::numeric_limits<c10::BFloat16>::epsilon());
    case at::kFloat:
      return double(std::numeric_limits<float>::epsilon());
    case at::kDouble:
      return std::numeric_limits<double>::epsilon();
    default:
      return std::nullopt;
  }
}

std::optional<double> headroom_binades(double largest, c10::ScalarType dtype) {
  const auto limit = largest_finite(dtype);
  if (!limit || !(largest > 0) || !std::isfinite(largest)) return std::nullopt;
  return std::log2(*limit / largest);
}

CastCounts cast_counts(const torch::Tensor& values, c10::ScalarType format) {
  torch::NoGradGuard no_grad;
  const auto cast = values.to(format);
  const auto nonzero = values != 0;
  const auto cast_zero = cast == 0;
  // The format's smallest normal is a power of two that fp32 holds: no wider copy of the values is made.
  const auto below_normal = cast.abs().to(torch::kFloat) < *smallest_normal(format);
  return {nonzero.sum(), (nonzero & cast_zero).sum(), (~cast_zero & below_normal).sum(),
          (torch::isfinite(values) & torch::isinf(cast)).sum()};
}

}  // namespace ampbench::numerics
