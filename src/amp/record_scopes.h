#pragma once

// The names a low-bit linear layer records its work under (LibTorch's RecordFunction):
// - user scopes for the profiler (profile/attributed_op.cpp reads them): its operands' preparation (casts,
//   quantization, NVFP4's Hadamard transform), the format's own work, whose matrix products are no matrix
//   work of the model's; and an emulated product, the format's product computed in wider types (a bf16 or
//   fp32 mm of the dequantized operands), counted as the format's work;
// - the op its forward product runs as while an observer is installed, which the numerics pass's observers
//   read as one op of the layer, not the ops inside it (numerics/op_observer.cpp).
namespace ampbench::amp {

inline constexpr const char* kOperandsMarker = "ampbench::low_bit_operands";
inline constexpr const char* kEmulatedProductMarker = "ampbench::emulated_product";
inline constexpr const char* kLowBitProductOp = "ampbench::low_bit_product";

}  // namespace ampbench::amp
