#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace ampbench::profile {

// What kind of work an operator does: the rows of "where the time went".
enum class OpClass {
  matmul_conv,     // matrix products and convolutions (forward and backward)
  attention,       // fused scaled-dot-product attention
  normalization,   // layer, batch, group and RMS norms
  elementwise,     // arithmetic and activations
  reduction_loss,  // sums, means, softmax, pooling and the loss
  cast,            // dtype conversions: autocast's casts into 16-bit and back
  optimizer,       // the optimizer's and GradScaler's fused and foreach kernels
  data_movement,   // copies, gathers, concatenations, views and layout changes
  other,
};
inline constexpr int kOpClasses = 9;
std::string_view to_string(OpClass op_class);

// The class of an operator by its profiler name ("aten::addmm"); a copy between two dtypes is a cast.
// `dtypes` are its inputs' as the profiler records them.
OpClass classify_op(std::string_view name, const std::vector<std::string>& dtypes);

// The profiler's spelling of the 16-bit floating types ("c10::Half", "c10::BFloat16").
bool is_16bit_dtype(std::string_view dtype);
// The profiler's spelling of the float8 types ("c10::Float8_e4m3fn", "c10::Float8_e5m2", ...).
bool is_float8_dtype(std::string_view dtype);
// A floating-point tensor dtype of any width, as the profiler spells it.
bool is_floating_dtype(std::string_view dtype);

}  // namespace ampbench::profile
