// The block-scaled formats' quantizers and their emulated linear layer, on what each format promises: the
// values it can hold, its scales, what saturates or flushes, unbiased stochastic rounding, an orthogonal
// Hadamard transform, products close to bf16's, and the layer filter. Bit parity with torchao and
// TransformerEngine's rule is tests/test_block_formats_parity.cpp's.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <ATen/CPUGeneratorImpl.h>

#include "amp/autocast_scope.h"
#include "amp/block_scaled_linear.h"
#include "models/mlp.h"

namespace {

using ampbench::amp::LinearRecipe;
using ampbench::amp::ScaleRounding;

// Whether every value is its block's scale times an element of `grid` (or its negative), to fp32's rounding
// of that product.
bool on_grid(const torch::Tensor& values, const torch::Tensor& scales, int64_t block,
             const std::vector<double>& grid) {
  const auto elements = (values.reshape({-1, block}) / scales.reshape({-1, 1})).abs().reshape({-1, 1});
  const auto allowed = torch::tensor(grid, torch::kFloat32).reshape({1, -1});
  return ((elements - allowed).abs() <= 1e-6 * allowed.clamp_min(1)).any(1).all().item<bool>();
}

// e4m3's finite magnitudes: 0, subnormals k x 2^-9, and (1 + m/8) x 2^e up to 448.
std::vector<double> e4m3_values() {
  std::vector<double> out{0.0};
  for (int k = 1; k < 8; ++k) out.push_back(k * std::ldexp(1.0, -9));
  for (int e = -6; e <= 8; ++e)
    for (int m = 0; m < 8 && !(e == 8 && m == 7); ++m) out.push_back((1 + m / 8.0) * std::ldexp(1.0, e));
  return out;
}

TEST(BlockFormats, Mxfp8HoldsE4m3ElementsTimesAPowerOfTwoPerBlockOf32) {
  torch::manual_seed(1);
  const auto x = (torch::randn({4, 64}) * torch::logspace(-6, 6, 64)).to(torch::kBFloat16);
  for (auto rounding : {ScaleRounding::rceil, ScaleRounding::floor}) {
    SCOPED_TRACE(std::string(to_string(rounding)));
    const auto q = ampbench::amp::quantize_mxfp8(x, rounding);
    EXPECT_EQ(q.blocks, 8);
    EXPECT_TRUE((torch::log2(q.scales) == torch::round(torch::log2(q.scales))).all().item<bool>());
    EXPECT_TRUE(on_grid(q.values, q.scales, 32, e4m3_values()));
    // Each element within e4m3's half-ulp of the original, where it did not saturate.
    const auto relative =
        ((q.values - x.to(torch::kFloat32)).abs() / x.to(torch::kFloat32).abs().clamp_min(1e-30));
    const auto large = x.to(torch::kFloat32).abs() > q.scales.repeat_interleave(32).reshape({4, 64}) * 4;
    EXPECT_LE(relative.masked_select(large).max().item<double>(), 1.0 / 16 + 1e-6);
  }
  // RCEIL scales amax / 448 up: nothing saturates. FLOOR leaves a block whose amax is 1.875 x 2^k above 448.
  const auto block = torch::full({1, 32}, 1.0).to(torch::kBFloat16);
  block[0][3] = 1.875;
  EXPECT_EQ(ampbench::amp::quantize_mxfp8(block, ScaleRounding::rceil).saturated.item<int64_t>(), 0);
  EXPECT_EQ(ampbench::amp::quantize_mxfp8(block, ScaleRounding::floor).saturated.item<int64_t>(), 1);
  // A block below E8M0's least scale is left unscaled and flushes.
  const auto tiny = torch::full({1, 32}, 1e-38).to(torch::kBFloat16);
  const auto flushed = ampbench::amp::quantize_mxfp8(tiny, ScaleRounding::rceil);
  EXPECT_EQ(flushed.flushed.item<int64_t>(), 1);
  EXPECT_EQ(flushed.values.abs().max().item<float>(), 0.0f);
}

// FLOOR at E8M0's least scale, 2^-127: a block that needs it exactly (amax 1.5 x 2^-119) keeps its values
// and flushes nothing; one that needs less (amax 2^-122) is clamped there, flushed, and still decodes by
// the scale it was encoded by, its values to e4m3's precision, never halved.
TEST(BlockFormats, Mxfp8FloorAtE8m0sLeastScaleDecodesByTheScaleItEncodedBy) {
  for (double amax : {1.5 * std::ldexp(1.0, -119), std::ldexp(1.0, -122)}) {
    SCOPED_TRACE(amax);
    const auto x = torch::linspace(0.25, 1.0, 32).reshape({1, 32}) * amax;
    const auto q = ampbench::amp::quantize_mxfp8(x, ScaleRounding::floor);
    EXPECT_EQ(q.scales.item<float>(), std::ldexp(1.0f, -127));
    EXPECT_EQ(q.flushed.item<int64_t>(), amax < std::ldexp(1.0, -119) ? 1 : 0);
    EXPECT_LE(((q.values - x).abs() / x).max().item<double>(), 1.0 / 16);
  }
}

TEST(BlockFormats, Nvfp4HoldsE2m1ElementsUnderItsTwoScalesAndZerosStayZeros) {
  torch::manual_seed(2);
  const auto x = (torch::randn({8, 64}) * torch::logspace(-3, 3, 64)).to(torch::kBFloat16);
  const auto q = ampbench::amp::quantize_nvfp4(x);
  EXPECT_EQ(q.blocks, 32);
  EXPECT_TRUE(on_grid(q.values, q.scales, 16, {0, 0.5, 1, 1.5, 2, 3, 4, 6}));
  // The tensor's largest element holds its value to e2m1's precision: its block's scale is amax / 6.
  const auto amax = x.to(torch::kFloat32).abs().max().item<double>();
  EXPECT_NEAR(q.values.abs().max().item<double>(), amax, amax / 8);
  const auto zeros = ampbench::amp::quantize_nvfp4(torch::zeros({2, 32}));
  EXPECT_TRUE(zeros.values.eq(0).all().item<bool>());
  EXPECT_EQ(zeros.flushed.item<int64_t>(), 0);
}

// Under per-tensor scales of 1 (amax 2688), a block's e4m3 scale is its amax / 6 as the kernels round it,
// e4m3's subnormals included: amax 0.03 gives 3 x 2^-9 (torchao would raise it to 2^-6), and its elements
// keep their own range. A block whose scale rounds below e4m3's least subnormal is lost, and counted flushed.
TEST(BlockFormats, Nvfp4BlockScalesKeepE4m3sSubnormalsAndALostBlockIsFlushed) {
  auto x = torch::zeros({1, 48});
  x[0][0] = 2688;
  x[0][16] = 0.03;
  x[0][17] = -0.015;
  x[0][32] = 1e-4;
  const auto q = ampbench::amp::quantize_nvfp4(x);
  EXPECT_EQ(q.stored_scales[1].item<float>(), std::ldexp(3.0f, -9));
  EXPECT_FLOAT_EQ(q.values[0][16].item<float>(), 6 * std::ldexp(3.0f, -9));
  EXPECT_FLOAT_EQ(q.values[0][17].item<float>(), -3 * std::ldexp(3.0f, -9));
  EXPECT_EQ(q.stored_scales[2].item<float>(), 0.0f);
  EXPECT_EQ(q.values[0][32].item<float>(), 0.0f);
  EXPECT_EQ(q.flushed.item<int64_t>(), 1);
}

// An inf element saturates its block, as the kernels take an encode scale of 1 for an inf amax; the other
// blocks keep their elements (the per-tensor decode scale, amax / 2688, is inf: the product is not finite).
TEST(BlockFormats, Nvfp4SaturatesABlockHoldingInf) {
  auto x = torch::zeros({1, 32});
  x[0][0] = std::numeric_limits<float>::infinity();
  x[0][16] = 6;
  x[0][17] = 2;
  const auto block_values = ampbench::amp::nvfp4_block_values(ampbench::amp::quantize_nvfp4(x), 1);
  EXPECT_EQ(block_values[0][0].item<float>(), 6 * 448.0f);
  EXPECT_EQ(block_values[0][16].item<float>(), 6.0f);
  EXPECT_EQ(block_values[0][17].item<float>(), 2.0f);
}

// An amax of 2688 makes the per-tensor scales 1, and a block whose amax is 6 has block scale 1: its elements
// are encoded as they are, so each tie between two e2m1 neighbours is a tie. Ties go to the even code (0, 1,
// 2, 4 below; half-up would give 0.5, 1.5, 3, 6).
TEST(BlockFormats, E2m1RoundsATieToTheEvenCode) {
  const std::vector<float> ties{0.25, 1.25, 2.5, 5, 0.75, 1.75, 3.5, -0.25, -1.25, -2.5, -5};
  const std::vector<float> even{0, 1, 2, 4, 1, 2, 4, -0.0, -1, -2, -4};
  auto x = torch::zeros({1, 32});
  x[0][0] = 2688;
  x[0][16] = 6;
  x.slice(1, 17, 17 + int64_t(ties.size())).copy_(torch::tensor(ties));
  const auto q = ampbench::amp::quantize_nvfp4(x);
  EXPECT_EQ(q.tensor_scale.item<float>(), 1.0f);
  EXPECT_EQ(q.stored_scales[1].item<float>(), 1.0f);
  EXPECT_TRUE(torch::equal(q.values[0].slice(0, 17, 17 + int64_t(ties.size())), torch::tensor(even)))
      << q.values;
}

TEST(BlockFormats, Nvfp4StochasticRoundingIsUnbiasedAndLandsOnTheTwoNeighbours) {
  // A row of 16 values between e2m1's grid points, under a block scale of amax / 6 = 1.
  const auto row =
      torch::tensor({6.0, 0.2, 0.7, 1.3, 1.8, 2.2, 2.9, 3.5, 4.4, 5.1, 5.9, 0.1, 0.9, 2.5, 3.1, 4.9});
  const auto x = row.repeat({4096, 1});
  const auto q = ampbench::amp::quantize_nvfp4(x, false, at::make_generator<at::CPUGeneratorImpl>(3));
  const auto nearest = ampbench::amp::quantize_nvfp4(x);
  EXPECT_FALSE(q.values.equal(nearest.values));
  const auto mean = q.values.mean(0);
  EXPECT_LE((mean - row).abs().max().item<double>(), 0.05);
  // Every element rounded to the grid point below or above it.
  const auto below =
      torch::tensor({6.0, 0.0, 0.5, 1.0, 1.5, 2.0, 2.0, 3.0, 4.0, 4.0, 4.0, 0.0, 0.5, 2.0, 3.0, 4.0});
  const auto above =
      torch::tensor({6.0, 0.5, 1.0, 1.5, 2.0, 3.0, 3.0, 4.0, 6.0, 6.0, 6.0, 0.5, 1.0, 3.0, 4.0, 6.0});
  EXPECT_TRUE(((q.values == below) | (q.values == above)).all().item<bool>());
}

TEST(BlockFormats, Nvfp4WeightTilesGiveAWeightAndItsTransposeTheSameValues) {
  torch::manual_seed(4);
  const auto w = (torch::randn({32, 48}) * torch::logspace(-2, 2, 48)).to(torch::kBFloat16);
  const auto tiles = ampbench::amp::quantize_nvfp4(w, /*tiles_2d=*/true);
  const auto transposed = ampbench::amp::quantize_nvfp4(w.t().contiguous(), /*tiles_2d=*/true);
  EXPECT_EQ(tiles.blocks, 6);
  EXPECT_TRUE(tiles.values.t().equal(transposed.values));
  EXPECT_FALSE(tiles.values.equal(ampbench::amp::quantize_nvfp4(w).values));  // 1 x 16 blocks differ
}

TEST(BlockFormats, TheHadamardTransformIsOrthogonalSoAProductThroughItIsTheSame) {
  const auto h = ampbench::amp::hadamard_16_matrix().to(torch::kFloat32);
  EXPECT_TRUE(h.matmul(h.t()).equal(torch::eye(16)));
  torch::manual_seed(5);
  const auto a = torch::randn({8, 64}), b = torch::randn({4, 64});
  const auto through = ampbench::amp::hadamard_16(a)
                           .to(torch::kFloat32)
                           .matmul(ampbench::amp::hadamard_16(b).to(torch::kFloat32).t());
  EXPECT_TRUE(torch::allclose(through, a.matmul(b.t()), 0.02, 0.05));
}

TEST(BlockFormats, BlockwiseFp8ScalesEachTileByAPowerOfTwoAndAnUnusableTileByOne) {
  torch::manual_seed(6);
  auto x = torch::randn({2, 256}) * 3;
  x[1].slice(0, 128, 256).zero_();
  const auto rows = ampbench::amp::quantize_fp8_blocks(x, 1);
  EXPECT_EQ(rows.blocks, 4);
  const auto exponents = torch::log2(rows.scales);
  EXPECT_TRUE((exponents == torch::round(exponents)).all().item<bool>());
  EXPECT_EQ(rows.scales[3].item<float>(), 1.0f);  // the zero tile
  EXPECT_TRUE(on_grid(rows.values, rows.scales, 128, e4m3_values()));
  // Each tile's largest element is within e4m3's precision of itself, at most 448 x its scale.
  EXPECT_TRUE(torch::allclose(rows.values.abs().amax(1), x.abs().amax(1), 1.0 / 16, 0));
  x[0][5] = std::numeric_limits<float>::infinity();
  EXPECT_EQ(ampbench::amp::quantize_fp8_blocks(x, 1).saturated.item<int64_t>(), 1);
  const auto weight = ampbench::amp::quantize_fp8_blocks(torch::randn({128, 256}), 128);
  EXPECT_EQ(weight.blocks, 2);
}

// The formats at their edges, each as its reference has it: one NaN in an NVFP4 tensor makes its per-tensor
// scale NaN and so every value (torchao), a tiny nonzero amax leaves zeros zeros (the kernels clamp the
// reciprocal scale at fp32's largest), and a NaN in a blockwise fp8 tile leaves the rest of the tile scaled
// by the amax of its numbers (TransformerEngine's amax skips NaN).
TEST(BlockFormats, AtTheirEdgesTheFormatsFollowTheirReferences) {
  torch::manual_seed(8);
  auto x = torch::randn({2, 32});
  x[0][3] = std::numeric_limits<float>::quiet_NaN();
  EXPECT_TRUE(torch::isnan(ampbench::amp::quantize_nvfp4(x).values).all().item<bool>());
  auto tiny = torch::zeros({1, 32});
  tiny[0][0] = 1e-35f;
  const auto tiny_values = ampbench::amp::quantize_nvfp4(tiny).values;
  EXPECT_FALSE(torch::isnan(tiny_values).any().item<bool>()) << tiny_values;
  EXPECT_TRUE((tiny_values.slice(1, 1) == 0).all().item<bool>());
  auto tile = torch::randn({1, 128}) * 10;
  auto without = tile.clone();
  tile[0][5] = std::numeric_limits<float>::quiet_NaN();
  without[0][5] = 0;
  const auto with_nan = ampbench::amp::quantize_fp8_blocks(tile, 1),
             clean = ampbench::amp::quantize_fp8_blocks(without, 1);
  EXPECT_TRUE(torch::isnan(with_nan.values[0][5]).item<bool>());
  EXPECT_EQ(with_nan.scales.item<float>(), clean.scales.item<float>());
  const auto others = torch::cat({torch::arange(5), torch::arange(6, 128)});
  EXPECT_TRUE(
      torch::equal(with_nan.values[0].index_select(0, others), clean.values[0].index_select(0, others)));
}

// NVFP4's emulated product applies the two per-tensor scales to the fp32 product of the block-scaled
// elements (exact in bf16), as the kernels do: never the operands dequantized into bf16 one by one.
TEST(BlockFormats, TheEmulatedNvfp4ProductAppliesThePerTensorScalesToTheFp32Product) {
  torch::manual_seed(5);
  const auto x = (torch::randn({32, 64}) * 3).to(torch::kBFloat16), w = torch::randn({16, 64}) * 0.05;
  ampbench::amp::Float8Settings settings{LinearRecipe::nvfp4};
  settings.block = {ScaleRounding::rceil, false, false, false};
  const auto y = ampbench::amp::block_scaled_matmul(x, w, settings, std::nullopt);
  const auto qx = ampbench::amp::quantize_nvfp4(x),
             qw = ampbench::amp::quantize_nvfp4(w.to(torch::kBFloat16));
  const auto bx = ampbench::amp::nvfp4_block_values(qx, 1), bw = ampbench::amp::nvfp4_block_values(qw, 1);
  EXPECT_TRUE(torch::equal(bx.to(torch::kBFloat16).to(torch::kFloat32), bx));  // exact in bf16
  const auto kernels = (at::mm(bx, bw.t()) * (qx.tensor_scale * qw.tensor_scale)).to(torch::kBFloat16);
  EXPECT_TRUE(torch::equal(y, kernels));
  const auto operands_in_bf16 = at::mm(qx.values.to(torch::kBFloat16), qw.values.to(torch::kBFloat16).t());
  EXPECT_FALSE(torch::equal(y, operands_in_bf16));
}

// Each recipe's product and both gradients close to bf16's (the formats' rounding apart), in bf16.
TEST(BlockFormats, EachRecipesLinearLayerIsCloseToBf16sForwardAndBackward) {
  torch::manual_seed(7);
  const auto input = torch::randn({128, 256}).to(torch::kBFloat16);
  const auto weight = torch::randn({128, 256}) * 0.05;
  const auto grad = (torch::randn({128, 128}) * 1e-3).to(torch::kBFloat16);
  auto reference_x = input.clone().requires_grad_(), reference_w = weight.clone().requires_grad_();
  auto reference = at::linear(reference_x, reference_w.to(torch::kBFloat16));
  reference.backward(grad);
  auto cosine = [](const torch::Tensor& a, const torch::Tensor& b) {
    return torch::cosine_similarity(a.to(torch::kDouble).reshape(-1), b.to(torch::kDouble).reshape(-1), 0)
        .item<double>();
  };
  for (auto recipe : {LinearRecipe::mxfp8, LinearRecipe::nvfp4, LinearRecipe::blockwise}) {
    SCOPED_TRACE(std::string(to_string(recipe)));
    auto x = input.clone().requires_grad_(), w = weight.clone().requires_grad_();
    ampbench::amp::Float8Settings settings{recipe};
    auto y = ampbench::amp::block_scaled_matmul(x, w, settings, at::make_generator<at::CPUGeneratorImpl>(8));
    y.backward(grad);
    EXPECT_EQ(y.scalar_type(), torch::kBFloat16);
    EXPECT_EQ(w.grad().scalar_type(), torch::kFloat32);  // the master weight's gradient
    const double floor = recipe == LinearRecipe::nvfp4 ? 0.98 : 0.998;
    EXPECT_GT(cosine(y, reference), floor);
    EXPECT_GT(cosine(x.grad(), reference_x.grad()), floor);
    EXPECT_GT(cosine(w.grad(), reference_w.grad()), floor);
  }
}

// keep_first 1 and keep_last 1 of a three-layer MLP: the first and last layers stay in bf16, the middle
// one runs in the recipe, whose dimensions it takes.
TEST(BlockFormats, TheLayerFilterKeepsTheFirstAndLastLayersAmongThoseTheModelRuns) {
  torch::manual_seed(9);
  auto model = ampbench::models::build_network(ampbench::models::MlpOptions(64, 32).width(32).depth(3));
  const auto inputs = torch::randn({32, 64});
  ampbench::amp::Float8Layers census;
  auto settings = *ampbench::amp::float8_settings(ampbench::amp::PrecisionMode::mxfp8);
  {
    torch::NoGradGuard no_grad;
    ampbench::amp::AutocastScope autocast(torch::kCPU, torch::kBFloat16);
    ampbench::amp::Float8Scope scope(settings, &census);
    model->forward(inputs);
  }
  ASSERT_EQ(census.records().size(), 4u);
  settings.kept_in_bf16 = ampbench::amp::kept_in_bf16(census, {1, 1, 0});
  ampbench::amp::Float8Layers layers;
  {
    ampbench::amp::AutocastScope autocast(torch::kCPU, torch::kBFloat16);
    ampbench::amp::Float8Scope scope(settings, &layers);
    model->forward(inputs);
  }
  const auto& records = layers.records();
  EXPECT_TRUE(records.front()->kept_by_filter);
  EXPECT_TRUE(records.back()->kept_by_filter);
  EXPECT_EQ(records[1]->float8_calls + records[2]->float8_calls, 2);
  // min_features keeps the layers with fewer features than it, whatever their place.
  const auto small = ampbench::amp::kept_in_bf16(census, {0, 0, 33});
  EXPECT_EQ(small->size(), 4u);
}

}  // namespace
