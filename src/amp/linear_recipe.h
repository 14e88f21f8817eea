#pragma once

#include <cstdint>
#include <string_view>

namespace ampbench::amp {

// How a mode's linear layers compute their three products (float8_linear.h). tensorwise and rowwise are
// torchao's Float8Linear recipes, run through at::_scaled_mm: tensorwise scales each tensor once (inputs and
// weights in e4m3, output gradients in e5m2), rowwise each row of each product's operand (all e4m3, scales
// rounded down to powers of two). mxfp8, nvfp4 and blockwise are the block-scaled formats
// (block_formats.h), on the GPU's kernels where it has them and emulated elsewhere: mxfp8 e4m3 with an E8M0
// scale per 32 elements, nvfp4 e2m1 with an e4m3 scale per 16 and a per-tensor scale, blockwise e4m3 with a
// power-of-two fp32 scale per 1 x 128 (128 x 128 for weights).
enum class LinearRecipe { tensorwise, rowwise, mxfp8, nvfp4, blockwise };
std::string_view to_string(LinearRecipe recipe);

// The block-scaled recipes, whose products ampbench emulates wherever the device has no kernels for them.
inline bool is_block_scaled(LinearRecipe recipe) {
  return recipe == LinearRecipe::mxfp8 || recipe == LinearRecipe::nvfp4 || recipe == LinearRecipe::blockwise;
}

// What every dimension of a layer's products must be a multiple of for the recipe to take them:
// at::_scaled_mm's 16, or the recipe's block.
int64_t dimension_multiple(LinearRecipe recipe);

// How an MX block's E8M0 scale is rounded: RCEIL (torchao's training default, and cuBLAS's) rounds
// amax / 448 up to a power of two, computed as torchao does, ceil(log2(descale)) in fp32; FLOOR takes amax's
// exponent less e4m3's largest (8), so a block's largest element may saturate at 448.
enum class ScaleRounding { rceil, floor };
std::string_view to_string(ScaleRounding rounding);

// The parts of the block-scaled recipes a config may switch (precision.mxfp8, precision.nvfp4): the MX
// scale's rounding, and the three parts of NVFP4's training recipe.
struct BlockRecipeOptions {
  ScaleRounding mx_rounding = ScaleRounding::rceil;
  bool nvfp4_hadamard = true;         // the 16-point random Hadamard transform of the weight-gradient inputs
  bool nvfp4_weight_tiles_2d = true;  // one scale per 16 x 16 tile of a weight, shared by W and its transpose
  bool nvfp4_stochastic = true;       // gradients rounded stochastically
  bool operator==(const BlockRecipeOptions&) const = default;
};

// Which linear layers of a low-bit mode stay in bf16 whatever their shapes (precision.layer_filter): the
// first and the last layers the model runs, and layers with fewer input or output features than min_features,
// as NVFP4's recipe keeps its last layers and torchao filters small ones.
struct LayerFilter {
  int64_t keep_first = 0;
  int64_t keep_last = 0;
  int64_t min_features = 0;
  bool keeps_any() const { return keep_first > 0 || keep_last > 0 || min_features > 0; }
  bool operator==(const LayerFilter&) const = default;
};

}  // namespace ampbench::amp
