#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include <ATen/core/Generator.h>
#include <torch/torch.h>

#include "amp/linear_recipe.h"

namespace ampbench::amp {

// The block-scaled formats, quantized exactly as the recipes that define them do, on any device: each
// function takes a tensor whose last dimension is blocked (a multiple of the block), and returns the values
// the format holds, dequantized into fp32 (element x its scales), with the scales and how many blocks' scales
// left the range of the scale's format. Quantizing and dequantizing this way is how ampbench emulates a
// product in the format: the product of two dequantized operands in bf16 with fp32 accumulation, as torchao's
// emulated kernels compute it; for NVFP4, the product of the block-scaled elements (exact in bf16) in fp32,
// times the two per-tensor scales, as the kernels apply them.

// A tensor as a block-scaled format holds it.
struct BlockQuantized {
  // Dequantized, fp32, the input's shape; undefined where the quantizer was asked not to (`dequantize`
  // false: a product on the GPU's kernels, which multiply the codes, has no use for them).
  torch::Tensor values;
  // One scale per block as the format stores it, in fp32 (an E8M0 scale's power of two; an NVFP4 block's
  // e4m3 scale times the per-tensor scale; a blockwise fp8 tile's inverse scale).
  torch::Tensor scales;
  int64_t blocks = 0;
  std::vector<int64_t> shape;  // the input's
  // What a kernel multiplies (block_scaled_kernels.h), kept as the quantization made them: the elements in
  // blocks' order ([blocks, block elements]; e4m3 in float8_e4m3fn, e2m1's values in fp32), each block's
  // scale as its format stores it, in fp32 (NVFP4's e4m3 scale without the per-tensor one; the same tensor as
  // `scales` for the other formats), and NVFP4's per-tensor scale (0-d; undefined for the other formats).
  torch::Tensor codes, stored_scales, tensor_scale;
  // Blocks whose values or scale the format could not hold (0-d int64 tensors on the operand's device, never
  // read here, so that the timed loop does not wait for them): saturated, a block whose largest elements were
  // clamped to the format's largest (an MX block under FLOOR's scale, an NVFP4 scale above e4m3's range, a
  // blockwise tile holding inf); flushed, a nonzero block whose scale the format could not make small enough
  // (an MX scale clamped at E8M0's least, 2^-127, its small elements underflowing; an NVFP4 scale that
  // rounded to e4m3's zero, the whole block lost).
  torch::Tensor saturated, flushed;
};

// MXFP8: e4m3 elements, one E8M0 scale per 32 consecutive elements of the last dimension, as torchao 0.18's
// to_mx and MXTensor dequantize compute them from a bf16 or fp32 tensor (the amax in the input's dtype, the
// rest in fp32; NaN poisons its block).
inline constexpr int64_t kMxBlock = 32;
BlockQuantized quantize_mxfp8(const torch::Tensor& x, ScaleRounding rounding, bool dequantize = true);

// NVFP4: e2m1 elements ({0, 0.5, 1, 1.5, 2, 3, 4, 6}, round to nearest even, saturating at 6), one e4m3 scale
// per 16 consecutive elements of the last dimension (or per 16 x 16 tile of a matrix, `tiles_2d`), under a
// per-tensor fp32 scale amax / (448 x 6) (torchao 0.18's), the block scales and elements as the Blackwell
// quantize kernels compute them (TransformerEngine's): the block scale amax x (2688 / tensor amax x 1/6)
// rounded to e4m3, subnormals kept, saturating at 448 (torchao raises a scale below 2^-6 to 2^-6); the
// elements times 1 / (block scale x (1 / (2688 / amax))), which differs from torchao's division by both
// scales in the last bit of a few codes. With `stochastic`,
// elements round up with the probability of their distance from the grid point below (drawn from the
// generator), as the NVFP4 training recipe rounds gradients. A tensor of zeros stays zeros.
inline constexpr int64_t kNvfp4Block = 16;
BlockQuantized quantize_nvfp4(const torch::Tensor& x, bool tiles_2d = false,
                              std::optional<at::Generator> stochastic = std::nullopt, bool dequantize = true);

// An NVFP4 operand's elements times their e4m3 block scales, without the per-tensor scale, as the matrix they
// came from (`tile_rows` 16 for 2-D tiles): what the kernels multiply before applying the two per-tensor
// scales to the fp32 product, exact in bf16 and fp16 (at most 5 significant bits, 2^-10 to 2688).
torch::Tensor nvfp4_block_values(const BlockQuantized& q, int64_t tile_rows);

// The NVFP4 recipe's random Hadamard transform of a weight-gradient operand along its last dimension: each
// 16 consecutive elements v become v diag(signs) H / 4 (H the 16-point Sylvester Hadamard matrix, an
// orthogonal transform whose product with the other operand's is unchanged), computed in fp32 and rounded
// to bf16, as torchao's kernel does; the signs are TransformerEngine's fixed ones.
torch::Tensor hadamard_16(const torch::Tensor& x);
// diag(signs) H / 4 in bf16: the matrix hadamard_16 multiplies by.
torch::Tensor hadamard_16_matrix();

// Blockwise fp8 (DeepSeek-V3's recipe, TransformerEngine's Float8BlockScaling): e4m3 elements, one fp32
// scale per tile of `tile_rows` x 128 elements of a matrix (1 x 128 for activations and gradients, 128 x 128
// for weights), the scale 448 / amax rounded down to a power of two (1 for a tile of zeros, inf or NaN).
inline constexpr int64_t kFp8BlockTile = 128;
BlockQuantized quantize_fp8_blocks(const torch::Tensor& x, int64_t tile_rows, bool dequantize = true);

// A matrix of `shape` from its tiles of `rows` x `columns`, one tile a row (the blocks' order above).
torch::Tensor from_tiles(const torch::Tensor& tiles, at::IntArrayRef shape, int64_t rows, int64_t columns);

}  // namespace ampbench::amp
