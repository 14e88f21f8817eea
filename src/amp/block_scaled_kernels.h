#pragma once

#include <cstdint>
#include <vector>

#include <torch/torch.h>

#include "amp/block_formats.h"

namespace ampbench::amp {

// The block-scaled products on a GPU's own kernels, through at::_scaled_mm_v2: the operands exactly as the
// emulation quantizes them (block_formats.h), packed into the format's dtypes and the scale layouts cuBLAS
// reads, so that the kernel and the emulation multiply the same values.

// One operand of a product as at::_scaled_mm_v2 takes it.
struct KernelOperand {
  torch::Tensor data;                 // [rows, K] e4m3, or [rows, K / 2] e2m1 pairs (Float4_e2m1fn_x2)
  std::vector<torch::Tensor> scales;  // the block scales in the kernel's layout; then NVFP4's per-tensor one
  std::vector<int64_t> recipes;       // at::blas::ScalingType of each scale
  std::vector<int64_t> swizzles;      // at::blas::SwizzleType of each scale
};

// `q`, a [rows, K] matrix quantized along K by the recipe in tiles of `tile_rows` rows (1; 16 for an NVFP4
// weight with 2-D scales; 128 for a blockwise fp8 weight), as the kernel takes it: MXFP8's E8M0 and NVFP4's
// e4m3 scales one per row and block, swizzled (swizzle_32_4_4), NVFP4's per-tensor scale beside them;
// blockwise fp8's fp32 scales, a 1 x 128 operand's [rows, K / 128] outer-dimension-major, a weight's
// [rows / 128, K / 128] tiles padded to 4 tiles along K and stored transposed.
KernelOperand kernel_operand(const BlockQuantized& q, LinearRecipe recipe, int64_t tile_rows);

// a @ b^T in `out_dtype` on the device's kernel for the recipe, from two operands blocked along K.
torch::Tensor kernel_product(const KernelOperand& a, const KernelOperand& b, c10::ScalarType out_dtype);

// The layout cuBLAS reads MX and NVFP4 block scales in (torchao's to_blocked): the [rows, blocks] matrix
// padded with zeros to 128 x 4 tiles, each tile stored as 32 x 16 (row r of the tile at (r % 32, r / 32)),
// flattened.
torch::Tensor swizzle_32_4_4(const torch::Tensor& scales);

// e2m1 values (on its grid, in fp32) as 4-bit codes (sign, then 0, 0.5, 1, 1.5, 2, 3, 4, 6 as 0 to 7), two to
// a byte along the last dimension, the first in the low nibble (torchao's pack_uint4).
torch::Tensor pack_e2m1(const torch::Tensor& values);

}  // namespace ampbench::amp
