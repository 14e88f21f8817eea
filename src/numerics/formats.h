#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <torch/torch.h>

namespace ampbench::numerics {

// The largest finite value of a floating dtype (fp16: 65504); empty for the others.
std::optional<double> largest_finite(c10::ScalarType dtype);
// The smallest normal value of a floating dtype (fp16: 2^-14); empty for the others.
std::optional<double> smallest_normal(c10::ScalarType dtype);
// The gap between 1 and the next larger value of a floating dtype (fp16: 2^-10, bf16: 2^-7); empty for
// others.
std::optional<double> epsilon(c10::ScalarType dtype);
// Binades (powers of two) from `largest` up to the dtype's largest finite value: how far the values can grow
// before they overflow; negative when they already exceed it; empty when `largest` is 0 or not finite.
std::optional<double> headroom_binades(double largest, c10::ScalarType dtype);

// What casting a floating tensor into a narrower `format` does to its elements, each rounded to nearest as
// the cast rounds it: counted on the tensor's device, read later (nothing here syncs).
struct CastCounts {
  torch::Tensor nonzero;    // elements that are not zero before the cast
  torch::Tensor flushed;    // nonzero elements the cast makes zero
  torch::Tensor subnormal;  // nonzero elements the cast makes subnormal (nonzero, below the smallest normal)
  torch::Tensor overflow;   // finite elements the cast makes infinite
};
CastCounts cast_counts(const torch::Tensor& values, c10::ScalarType format);

}  // namespace ampbench::numerics
