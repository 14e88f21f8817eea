#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ampbench::numerics {

// How large the values that a layer's ops produced in a 16-bit format were.
struct RangeFigures {
  double largest = 0;    // the largest finite magnitude
  int64_t elements = 0;  // the elements produced
  int64_t nonzero = 0;
  int64_t subnormal = 0;  // nonzero and below the format's smallest normal: precision lost to underflow
  int64_t nonfinite = 0;  // inf or NaN
  // Gradients under a loss scale only: of the nonzero elements, those that divided by the scale and rounded
  // back into the format flush to zero or turn subnormal. What backward would have produced without the
  // scaler is at least this: the ops before would have underflowed too (a lower bound).
  int64_t flushed_unscaled = 0, subnormal_unscaled = 0;
};

// One layer's figures: a reference model's module ("layers.2"), "after M" for the weight-free ops after
// module M (an activation function), "(input)" before the first layer, "(loss)"; an exported model's module
// path, or its node's name at the root.
struct LayerRanges {
  std::string layer;
  RangeFigures forward;   // the activations: what its forward ops returned
  RangeFigures backward;  // the gradients its backward ops returned (fp16: at the loss scale in force)
};

// Adds `from` into `into`, layer by layer (new layers at the end).
void merge_ranges(std::vector<LayerRanges>& into, const std::vector<LayerRanges>& from);

}  // namespace ampbench::numerics
