#include "amp/block_scaled_kernels.h"

#include <ATen/BlasBackend.h>
#include <ATen/ops/_scaled_mm_v2.h>

namespace ampbench::amp {
namespace {

using at::blas::ScalingType;
using at::blas::SwizzleType;

constexpr int64_t kSwizzleRows = 128;
constexpr int64_t kSwizzleColumns = 4;

int64_t round_up(int64_t n, int64_t multiple) { return (n + multiple - 1) / multiple * multiple; }

// The quantized elements as the [rows, K] matrix they came from.
torch::Tensor code_matrix(const BlockQuantized& q, int64_t rows, int64_t block, int64_t tile_rows) {
  const int64_t k = q.shape[1];
  if (tile_rows == 1) return q.codes.reshape({rows, k});
  return from_tiles(q.codes.reshape({-1, tile_rows * block}), {rows, k}, tile_rows, block);
}

// One scale per row and block of a [rows, blocks x block] operand: a tile's scale repeated over its rows.
torch::Tensor row_scales(const BlockQuantized& q, int64_t rows, int64_t tile_rows) {
  return q.stored_scales.reshape({rows / tile_rows, -1}).repeat_interleave(tile_rows, 0);
}

int64_t as_int(ScalingType type) { return static_cast<int64_t>(type); }
int64_t as_int(SwizzleType type) { return static_cast<int64_t>(type); }

KernelOperand mxfp8_operand(const BlockQuantized& q, int64_t rows) {
  const auto scales = swizzle_32_4_4(row_scales(q, rows, 1)).to(torch::kFloat8_e8m0fnu);
  return {code_matrix(q, rows, kMxBlock, 1),
          {scales},
          {as_int(ScalingType::BlockWise1x32)},
          {as_int(SwizzleType::SWIZZLE_32_4_4)}};
}

KernelOperand nvfp4_operand(const BlockQuantized& q, int64_t rows, int64_t tile_rows) {
  const auto scales = swizzle_32_4_4(row_scales(q, rows, tile_rows)).to(torch::kFloat8_e4m3fn);
  return {pack_e2m1(code_matrix(q, rows, kNvfp4Block, tile_rows)),
          {scales, q.tensor_scale.reshape({1})},
          {as_int(ScalingType::BlockWise1x16), as_int(ScalingType::TensorWise)},
          {as_int(SwizzleType::SWIZZLE_32_4_4), as_int(SwizzleType::NO_SWIZZLE)}};
}

KernelOperand blockwise_operand(const BlockQuantized& q, int64_t rows, int64_t tile_rows) {
  const auto codes = code_matrix(q, rows, kFp8BlockTile, tile_rows);
  const auto tiles = q.stored_scales.reshape({rows / tile_rows, -1});
  if (tile_rows == 1) {
    // [rows, K / 128] with the rows adjacent in memory.
    return {codes, {tiles.t().contiguous().t()}, {as_int(ScalingType::BlockWise1x128)}, {}};
  }
  const auto padded = at::constant_pad_nd(tiles, {0, round_up(tiles.size(1), 4) - tiles.size(1)}, 0.0);
  return {codes, {padded.t()}, {as_int(ScalingType::BlockWise128x128)}, {}};
}

}  // namespace

torch::Tensor swizzle_32_4_4(const torch::Tensor& scales) {
  const int64_t row_tiles = (scales.size(0) + kSwizzleRows - 1) / kSwizzleRows;
  const int64_t column_tiles = (scales.size(1) + kSwizzleColumns - 1) / kSwizzleColumns;
  const auto padded = at::constant_pad_nd(
      scales,
      {0, column_tiles * kSwizzleColumns - scales.size(1), 0, row_tiles * kSwizzleRows - scales.size(0)},
      0.0);
  return padded.view({row_tiles, kSwizzleRows, column_tiles, kSwizzleColumns})
      .permute({0, 2, 1, 3})
      .reshape({-1, 4, 32, kSwizzleColumns})
      .transpose(1, 2)
      .reshape({-1});
}

torch::Tensor pack_e2m1(const torch::Tensor& values) {
  const auto magnitude = values.abs();
  // 0, 0.5, 1, 1.5 -> 0 to 3; 2, 3 -> 4, 5; 4, 6 -> 6, 7.
  const auto index = torch::where(magnitude < 2, magnitude * 2,
                                  torch::where(magnitude < 4, magnitude + 2, magnitude / 2 + 4));
  const auto sign = torch::bitwise_left_shift(torch::signbit(values).to(torch::kUInt8), 3);
  const auto codes = torch::bitwise_or(index.to(torch::kUInt8), sign).contiguous();
  auto shape = codes.sizes().vec();
  shape.back() /= 2;
  const auto pairs = codes.reshape({-1, 2});
  const auto bytes = torch::bitwise_or(pairs.select(1, 0), torch::bitwise_left_shift(pairs.select(1, 1), 4));
  return bytes.reshape(shape).view(torch::kFloat4_e2m1fn_x2);
}

KernelOperand kernel_operand(const BlockQuantized& q, LinearRecipe recipe, int64_t tile_rows) {
  const int64_t rows = q.shape[0];
  switch (recipe) {
    case LinearRecipe::mxfp8:
      return mxfp8_operand(q, rows);
    case LinearRecipe::nvfp4:
      return nvfp4_operand(q, rows, tile_rows);
    case LinearRecipe::blockwise:
      return blockwise_operand(q, rows, tile_rows);
    case LinearRecipe::tensorwise:
    case LinearRecipe::rowwise:
      break;
  }
  TORCH_CHECK(false, "the ", to_string(recipe), " recipe is not block-scaled");
}

torch::Tensor kernel_product(const KernelOperand& a, const KernelOperand& b, c10::ScalarType out_dtype) {
  // The second operand column-major, as the kernels take it: b^T of a row-major b.
  return at::_scaled_mm_v2(a.data, b.data.t(), at::TensorList(a.scales), a.recipes, a.swizzles,
                           at::TensorList(b.scales), b.recipes, b.swizzles, /*bias=*/std::nullopt, out_dtype);
}

}  // namespace ampbench::amp
