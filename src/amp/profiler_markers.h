#pragma once

// The user scopes a low-bit linear layer opens for the profiler (profile/attributed_op.cpp reads them):
// - its operands' preparation (casts, quantization, NVFP4's Hadamard transform): the format's own work,
//   whose matrix products are no matrix work of the model's;
// - an emulated product: the format's product computed in wider types (a bf16 or fp32 mm of the dequantized
//   operands), counted as the format's work.
namespace ampbench::amp {

inline constexpr const char* kOperandsMarker = "ampbench::low_bit_operands";
inline constexpr const char* kEmulatedProductMarker = "ampbench::emulated_product";

}  // namespace ampbench::amp
