#pragma once

#include <torch/torch.h>

#include "numerics/format_limits.h"

namespace ampbench::numerics {

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
