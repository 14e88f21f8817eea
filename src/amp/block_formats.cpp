#include "amp/block_formats.h"

#include <array>
#include <limits>

#include "util/enum_names.h"

namespace ampbench::amp {
namespace {

constexpr double kE4m3Max = 448.0;
constexpr double kE2m1Max = 6.0;
constexpr int kE4m3MaxExponent = 8;  // 448 = 1.75 x 2^8
constexpr int kE8m0Bias = 127;
constexpr int kE8m0Nan = 255;

// TransformerEngine's fixed signs of the random Hadamard transform.
constexpr std::array<float, 16> kHadamardSigns{1, 1, 1, -1, 1, -1, -1, -1, -1, -1, -1, 1, -1, 1, -1, -1};

// `x` with its last dimension cut into rows of `block` elements.
torch::Tensor in_blocks(const torch::Tensor& x, int64_t block) {
  TORCH_CHECK(x.dim() >= 1 && x.size(-1) % block == 0, "a block-scaled operand's last dimension (",
              x.dim() ? x.size(-1) : 0, ") is not a multiple of ", block);
  return x.contiguous().reshape({-1, block});
}

// A matrix cut into tiles of `rows` x `columns`, one tile a row: [tiles, rows * columns].
torch::Tensor in_tiles(const torch::Tensor& x, int64_t rows, int64_t columns) {
  TORCH_CHECK(x.dim() == 2 && x.size(0) % rows == 0 && x.size(1) % columns == 0, "a ", x.sizes(),
              " operand is not made of ", rows, " x ", columns, " tiles");
  return x.contiguous()
      .reshape({x.size(0) / rows, rows, x.size(1) / columns, columns})
      .permute({0, 2, 1, 3})
      .reshape({-1, rows * columns});
}

// An fp32 tensor's bits as int32, and back.
torch::Tensor bits_of(const torch::Tensor& x) { return x.contiguous().view(torch::kInt32); }
torch::Tensor float_of(const torch::Tensor& bits) { return bits.contiguous().view(torch::kFloat32); }

torch::Tensor count(const torch::Tensor& flags) { return flags.sum().to(torch::kLong); }

// A block's E8M0 exponent (biased), the block multiplied by the inverse of its scale, and whether the scale
// was clamped at E8M0's least, 2^-127, below what the block needed (its small elements underflow).
struct E8m0Scaled {
  torch::Tensor exponent, scaled, flushed;
};

// RCEIL, as torchao computes it: the biased exponent of the power of two at or above amax / 448, from
// ceil(log2) in fp32, and the block multiplied by its inverse (by 1 below E8M0's range, by NaN for a NaN
// amax).
E8m0Scaled rceil_scaled(const torch::Tensor& amax, const torch::Tensor& blocks) {
  const auto descale = amax / kE4m3Max;
  auto exponent = torch::clamp(torch::ceil(torch::log2(descale)), -kE8m0Bias, kE8m0Bias) + kE8m0Bias;
  exponent = torch::where(torch::isinf(descale), torch::full_like(exponent, 254), exponent);
  exponent = torch::where(torch::isnan(descale), torch::full_like(exponent, kE8m0Nan), exponent);
  auto factor = torch::exp2(kE8m0Bias - exponent);
  factor = torch::where(exponent == 254, torch::full_like(factor, std::ldexp(1.0, -127)), factor);
  factor = torch::where(exponent == 0, torch::ones_like(factor), factor);
  factor = torch::where(exponent == kE8m0Nan, descale, factor);
  // Left unscaled at E8M0's least exponent, a nonzero block underflows.
  return {exponent.to(torch::kInt32), blocks * factor, (exponent == 0) & (amax > 0)};
}

// FLOOR, as torchao computes the scale: amax's exponent less e4m3's largest, clamped to E8M0's range. The
// block is multiplied by the inverse of the scale it is decoded by, as the hardware decodes it: torchao
// divides a block at E8M0's least scale, 2^-127, by fp32's least normal, 2^-126, so that its values come back
// halved. A NaN amax leaves the codes zeros (torchao divides by inf) and its scale NaN.
E8m0Scaled floor_scaled(const torch::Tensor& amax, const torch::Tensor& blocks) {
  const auto pow2 = torch::bitwise_and(torch::bitwise_right_shift(bits_of(amax), 23), 0xFF) - kE8m0Bias;
  const auto unbiased = pow2 - kE4m3MaxExponent;
  auto exponent = torch::clamp(unbiased, -kE8m0Bias, 128) + kE8m0Bias;
  exponent = torch::where(torch::isnan(amax), torch::full_like(exponent, kE8m0Nan), exponent);
  auto factor = torch::exp2((kE8m0Bias - exponent).to(torch::kFloat32));
  factor = torch::where(exponent == kE8m0Nan, torch::zeros_like(factor), factor);
  return {exponent.to(torch::kInt32), blocks * factor, (unbiased < -kE8m0Bias) & (amax > 0)};
}

// e2m1's grid point at or below |x| <= 6 and the gap to the next: 0.5 below 2, 1 below 4, 2 above.
std::pair<torch::Tensor, torch::Tensor> e2m1_floor(const torch::Tensor& magnitude) {
  const auto step = torch::where(
      magnitude < 2, torch::full_like(magnitude, 0.5),
      torch::where(magnitude < 4, torch::ones_like(magnitude), torch::full_like(magnitude, 2.0)));
  return {torch::floor(magnitude / step) * step, step};
}

// Rounds values already clamped to [-6, 6] onto e2m1's grid: to nearest even (as torchao's
// f32_to_f4_unpacked does), or stochastically from `generator`.
torch::Tensor to_e2m1(const torch::Tensor& scaled, std::optional<at::Generator>& generator) {
  const auto magnitude = scaled.abs();
  const auto [below, step] = e2m1_floor(magnitude);
  torch::Tensor rounded;
  if (generator) {
    const auto draw =
        torch::rand(scaled.sizes(), *generator, torch::TensorOptions(torch::kFloat32)).to(scaled.device());
    rounded = below + step * (draw < (magnitude - below) / step).to(torch::kFloat32);
  } else {
    rounded = torch::round(magnitude / step) * step;  // half to even: the grid's even codes
  }
  return torch::copysign(torch::clamp_max(rounded, kE2m1Max), scaled);
}

// The NVFP4 quantization of `blocks` ([blocks, elements]) under the per-tensor decode scale (torchao's,
// amax / 2688) and encode scale (the kernels', 2688 / amax), as the Blackwell quantize kernels compute it
// (TransformerEngine's, which its reference quantizer matches byte for byte).
BlockQuantized nvfp4_blocks(const torch::Tensor& blocks, const torch::Tensor& per_tensor,
                            const torch::Tensor& tensor_encode, std::optional<at::Generator>& generator,
                            bool dequantize) {
  // The block's e4m3 scale as the kernels compute it: its amax times (encode x 1/6) in fp32, clamped at
  // fp32's largest, rounded to e4m3 saturating at 448 and keeping e4m3's subnormals (torchao instead raises a
  // scale below e4m3's least normal, 2^-6, to it, which flushes that block's small elements).
  const auto amax = blocks.abs().amax(-1, /*keepdim=*/true);
  const auto relative =
      torch::clamp_max(amax * (tensor_encode * static_cast<double>(1.0f / static_cast<float>(kE2m1Max))),
                       std::numeric_limits<float>::max());
  const auto scale = torch::clamp_max(relative, kE4m3Max).to(torch::kFloat8_e4m3fn).to(torch::kFloat32);
  // The elements' encode scale as the Blackwell quantize kernels compute it (TransformerEngine's),
  // 1 / (e4m3 scale x (1 / encode)), clamped at fp32's largest as they clamp it: under a tiny per-tensor
  // scale (amax 1e-35) it would overflow, and a block of zeros times inf is NaN.
  const auto reciprocal =
      torch::clamp_max((scale * tensor_encode.reciprocal()).reciprocal(), std::numeric_limits<float>::max());
  const auto codes = to_e2m1(torch::clamp(blocks * reciprocal, -kE2m1Max, kE2m1Max), generator);
  const auto decode = per_tensor * scale;
  return {dequantize ? codes * decode : torch::Tensor(),
          decode.squeeze(-1),
          blocks.size(0),
          {},
          codes,
          scale.squeeze(-1),
          per_tensor,
          count(relative > kE4m3Max),
          count((scale == 0) & (amax > 0))};
}

}  // namespace

torch::Tensor from_tiles(const torch::Tensor& tiles, at::IntArrayRef shape, int64_t rows, int64_t columns) {
  return tiles.reshape({shape[0] / rows, shape[1] / columns, rows, columns})
      .permute({0, 2, 1, 3})
      .reshape(shape);
}

std::string_view to_string(ScaleRounding rounding) {
  return rounding == ScaleRounding::rceil ? "rceil" : "floor";
}

BlockQuantized quantize_mxfp8(const torch::Tensor& x, ScaleRounding rounding, bool dequantize) {
  const auto blocks = in_blocks(x, kMxBlock);
  // The amax in the input's dtype (exact), the rest in fp32, as torchao's to_mx.
  const auto amax = blocks.abs().amax(-1, /*keepdim=*/true).to(torch::kFloat32);
  const auto wide = blocks.to(torch::kFloat32);
  const auto [exponent, scaled, flushed] =
      rounding == ScaleRounding::rceil ? rceil_scaled(amax, wide) : floor_scaled(amax, wide);
  const auto codes = torch::clamp(scaled, -kE4m3Max, kE4m3Max).to(torch::kFloat8_e4m3fn);
  auto scale = torch::exp2((exponent - kE8m0Bias).to(torch::kFloat32));
  scale = torch::where(exponent == kE8m0Nan, torch::full_like(scale, std::numeric_limits<float>::quiet_NaN()),
                       scale);
  const auto values = dequantize ? (codes.to(torch::kFloat32) * scale).reshape(x.sizes()) : torch::Tensor();
  // Saturated: a block whose largest element e4m3 could not hold (FLOOR's scale can leave it above 448).
  const auto saturated = (scaled.abs() > kE4m3Max).any(-1);
  const auto block_scales = scale.squeeze(-1);
  return {values,       block_scales, blocks.size(0),   x.sizes().vec(), codes,
          block_scales, {},           count(saturated), count(flushed)};
}

BlockQuantized quantize_nvfp4(const torch::Tensor& x, bool tiles_2d, std::optional<at::Generator> stochastic,
                              bool dequantize) {
  const auto values = x.to(torch::kFloat32);
  const auto amax = values.abs().max();
  // A tensor of zeros has no scale to speak of: 1 keeps it zeros (torchao would divide 0 by 0). A NaN amax
  // stays NaN and poisons the tensor, as torchao's. Decided on the device, never read back: this runs in the
  // timed loop.
  const auto zero = amax == 0;
  const auto per_tensor = torch::where(zero, torch::ones_like(amax), amax / (kE4m3Max * kE2m1Max));
  // The kernels' encode scale, 1 where it would be 0 (an inf amax), as they take it: an inf element then
  // saturates its block instead of making every element NaN.
  const auto encode_or_zero =
      torch::clamp_max((kE4m3Max * kE2m1Max) / amax, std::numeric_limits<float>::max());
  const auto encode = torch::where(zero | (encode_or_zero == 0), torch::ones_like(amax), encode_or_zero);
  const auto blocks = tiles_2d ? in_tiles(values, kNvfp4Block, kNvfp4Block) : in_blocks(values, kNvfp4Block);
  auto q = nvfp4_blocks(blocks, per_tensor, encode, stochastic, dequantize);
  q.shape = x.sizes().vec();
  if (dequantize) {
    q.values =
        tiles_2d ? from_tiles(q.values, x.sizes(), kNvfp4Block, kNvfp4Block) : q.values.reshape(x.sizes());
  }
  return q;
}

torch::Tensor nvfp4_block_values(const BlockQuantized& q, int64_t tile_rows) {
  const auto values = q.codes * q.stored_scales.unsqueeze(-1);
  if (tile_rows == 1) return values.reshape(q.shape);
  return from_tiles(values.reshape({-1, tile_rows * kNvfp4Block}), q.shape, tile_rows, kNvfp4Block);
}

torch::Tensor hadamard_16_matrix() {
  auto h = torch::ones({1, 1});
  while (h.size(0) < 16) h = torch::cat({torch::cat({h, h}, 1), torch::cat({h, -h}, 1)}, 0);
  const auto signs = torch::tensor(std::vector<float>(kHadamardSigns.begin(), kHadamardSigns.end()));
  return (torch::diag(signs).matmul(h) * 0.25).to(torch::kBFloat16);
}

torch::Tensor hadamard_16(const torch::Tensor& x) {
  const auto matrix = hadamard_16_matrix().to(x.device(), torch::kFloat32);
  return in_blocks(x, 16).to(torch::kFloat32).matmul(matrix).to(torch::kBFloat16).reshape(x.sizes());
}

BlockQuantized quantize_fp8_blocks(const torch::Tensor& x, int64_t tile_rows, bool dequantize) {
  const auto tiles = in_tiles(x.to(torch::kFloat32), tile_rows, kFp8BlockTile);
  // TransformerEngine's amax skips NaN (fmaxf): a NaN element stays NaN, the rest of its tile is scaled.
  const auto magnitude = tiles.abs();
  const auto amax = torch::where(torch::isnan(magnitude), torch::zeros_like(magnitude), magnitude)
                        .amax(-1, /*keepdim=*/true);
  auto scale = kE4m3Max / amax;
  scale =
      torch::where(torch::isinf(scale), torch::full_like(scale, std::numeric_limits<float>::max()), scale);
  // Rounded down to a power of two by keeping the sign and exponent bits, as TransformerEngine does.
  scale = float_of(torch::bitwise_and(bits_of(scale), static_cast<int32_t>(0xFF800000u)));
  const auto unusable = (amax == 0) | torch::isinf(amax) | torch::isnan(amax);
  scale = torch::where(unusable, torch::ones_like(scale), scale);
  const auto codes = torch::clamp(tiles * scale, -kE4m3Max, kE4m3Max).to(torch::kFloat8_e4m3fn);
  const auto inverse = scale.reciprocal();
  const auto values =
      dequantize ? from_tiles(codes.to(torch::kFloat32) * inverse, x.sizes(), tile_rows, kFp8BlockTile)
                 : torch::Tensor();
  const auto tile_scales = inverse.squeeze(-1);
  return {values,
          tile_scales,
          tiles.size(0),
          x.sizes().vec(),
          codes,
          tile_scales,
          {},
          count(torch::isinf(amax)),
          torch::zeros({}, torch::kLong)};
}

}  // namespace ampbench::amp
