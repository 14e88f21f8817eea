#pragma once

#include <optional>

#include <c10/core/ScalarType.h>

namespace ampbench::numerics {

// A floating format's limits, from its dtype alone (defined in formats.cpp).
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

}  // namespace ampbench::numerics
