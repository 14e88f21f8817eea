#pragma once

#include <cstdint>

namespace ampbench::amp {

// What one block-scaled operand of a layer's products held, summed over the products observed: its blocks,
// those that saturated or flushed (BlockQuantized), the squared quantization error of the dequantized operand
// against the high-precision one and the operand's squared norm (their ratio is the relative error), and its
// largest magnitude.
struct OperandFigures {
  int64_t blocks = 0, saturated = 0, flushed = 0;
  double error_squares = 0, squares = 0;
  double largest = 0;
};

}  // namespace ampbench::amp
