// The block-scaled formats bit for bit against their references (tests/parity/block_formats_oracle.py):
// torchao 0.18's MXFP8 (both scale roundings) and NVFP4 block scales, the Blackwell kernels' NVFP4 element
// encoding, TransformerEngine's blockwise fp8 rule written from its definition, torchao's Hadamard matrix on
// the same signs, torchao's emulated MXFP8 linear, the kernels' product of NVFP4 operands, and the operands
// as torchao hands them to torch._scaled_mm
// (block_scaled_kernels.h); and NVFP4's default recipe against TransformerEngine's reference quantizer.
// Without torchao (or TransformerEngine, for the default recipe) these tests skip and say why.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include "amp/block_scaled_kernels.h"
#include "amp/block_scaled_linear.h"

#include "python_oracle.h"
#include "temp_dir_test.h"

namespace {

using ampbench::amp::LinearRecipe;
using ampbench::amp::ScaleRounding;

// Equal bit for bit where both are numbers, NaN where either is.
void expect_same(const torch::Tensor& ours, const torch::Tensor& theirs, const std::string& what) {
  SCOPED_TRACE(what);
  ASSERT_EQ(ours.sizes(), theirs.sizes());
  const auto a = ours.to(torch::kFloat32), b = theirs.to(torch::kFloat32);
  EXPECT_TRUE(a.isnan().equal(b.isnan())) << "NaN in different places";
  const auto numbers = ~(a.isnan() | b.isnan());
  const auto apart = (a.masked_select(numbers) != b.masked_select(numbers)).sum().item<int64_t>();
  EXPECT_EQ(apart, 0) << "of " << numbers.sum().item<int64_t>() << " values, largest difference "
                      << (a.masked_select(numbers) - b.masked_select(numbers)).abs().max().item<double>();
}

// Blocks that reach every branch of the scale rules: zeros, a value E8M0 cannot scale up to (tiny), bf16's
// largest, inf and NaN, and a block's amax at each power of two's neighbours.
torch::Tensor special_values() {
  auto special = torch::randn({8, 128});
  special.slice(1, 0, 32).select(0, 0).zero_();
  special.select(0, 1).mul_(1e-38);
  special.select(0, 2).fill_(3.3e38);
  special[3][5] = std::numeric_limits<float>::infinity();
  special[4][70] = std::numeric_limits<float>::quiet_NaN();
  for (int64_t b = 0; b < 4; ++b) special[5][b * 32] = std::ldexp(1.0, 8 * b - 12) * (1 + b * 0.0078125);
  special[6] = torch::logspace(-30, 30, 128);
  return special.to(torch::kBFloat16);
}

// Two tiles of rows and two of columns, neither full: the swizzle's padding shows.
torch::Tensor scale_matrix() { return torch::arange(1, 1 + 130 * 5, torch::kFloat32).reshape({130, 5}); }

class BlockFormatsParity : public ampbench::testing::TempDirTest {
 protected:
  void SetUp() override {
    TempDirTest::SetUp();
    torch::manual_seed(7);
    // Magnitudes that vary along both axes of each operand: blocks taken along the wrong one get other
    // scales.
    auto varied = [](int64_t rows, int64_t columns, double scale) {
      const auto along_rows = torch::logspace(-2, 2, rows).reshape({rows, 1});
      const auto along_columns = torch::logspace(-3, 3, columns).flip(0);
      return (torch::randn({rows, columns}) * along_rows * along_columns * scale).to(torch::kBFloat16);
    };
    inputs_.insert("x", varied(128, 256, 1));
    inputs_.insert("w", varied(128, 256, 0.05));
    inputs_.insert("go", varied(128, 128, 1e-4));
    for (const char* name : {"x", "w", "go"})
      inputs_.insert(std::string(name) + "_t", inputs_.at(name).t().contiguous());
    inputs_.insert("special", special_values());
    // e2m1's ties, each exactly one (the per-tensor and block scales are 1: test_block_formats.cpp).
    auto ties = torch::zeros({1, 32});
    ties[0][0] = 2688;
    ties[0][16] = 6;
    ties.slice(1, 17, 25).copy_(torch::tensor({0.25, 1.25, 2.5, 5.0, 0.75, 1.75, 3.5, -2.5}));
    inputs_.insert("ties", ties.to(torch::kBFloat16));
    // Each special row a tensor of its own, so that NVFP4's per-tensor scale meets each edge alone.
    for (int64_t row = 0; row < 8; ++row)
      inputs_.insert("special" + std::to_string(row), inputs_.at("special").slice(0, row, row + 1).clone());
    auto with_scales = inputs_.copy();
    with_scales.insert("scale_matrix", scale_matrix());
    ampbench::testing::write_tensors(with_scales, dir_ / "in.pt");
    ASSERT_NO_FATAL_FAILURE(ampbench::testing::run_oracle(
        "block_formats_oracle.py", (dir_ / "in.pt").string() + " " + (dir_ / "out.pt").string(),
        dir_ / "oracle.log"));
    if (IsSkipped()) return;
    oracle_ = ampbench::testing::read_tensors(dir_ / "out.pt");
  }

  torch::Tensor theirs(const std::string& key) { return oracle_.at(key).toTensor(); }

  c10::Dict<std::string, torch::Tensor> inputs_;
  c10::impl::GenericDict oracle_{c10::StringType::get(), c10::TensorType::get()};
};

TEST_F(BlockFormatsParity, Mxfp8ScalesAndValuesAreTorchaosForBothRoundings) {
  if (IsSkipped()) return;
  for (const auto& item : inputs_) {
    for (auto rounding : {ScaleRounding::rceil, ScaleRounding::floor}) {
      const auto key = item.key() + "/mxfp8/" + std::string(to_string(rounding));
      const auto ours = ampbench::amp::quantize_mxfp8(item.value(), rounding);
      const auto biased = theirs(key + "/scales");
      const auto scale = torch::where(biased == 255, torch::full_like(biased, NAN, torch::kFloat32),
                                      torch::exp2((biased - 127).to(torch::kFloat32)));
      expect_same(ours.scales, scale, key + " scales");
      expect_same(ours.values, theirs(key + "/values"), key + " values");
    }
  }
}

// The block scales and elements as the kernels compute them, on random matrices and on each edge: blocks of
// zeros, values far below the tensor's largest, bf16's largest, inf and NaN. torchao's block scales are the
// same but where torchao raises a scale below e4m3's least normal, 2^-6, to it, and in the last bit of a few.
TEST_F(BlockFormatsParity, Nvfp4ScalesAndElementsAreTheKernelsAndTorchaosAboveItsClamp) {
  if (IsSkipped()) return;
  int checked = 0;
  int64_t raised = 0;
  for (const auto& item : inputs_) {
    const std::string key = item.key() + "/nvfp4";
    if (!oracle_.contains(key + "/values")) continue;
    const auto ours = ampbench::amp::quantize_nvfp4(item.value());
    expect_same(ours.scales, theirs(key + "/scales"), key + " scales");
    expect_same(ours.values, theirs(key + "/values"), key + " values");
    expect_same(ours.tensor_scale, theirs(key + "/tensor_scale"), key + " per-tensor scale");
    expect_same(ampbench::amp::nvfp4_block_values(ours, 1), theirs(key + "/block_values"), key + " blocks");
    ++checked;
    // torchao's: where they differ, it raised the scale to 2^-6, or its order of operations rounded it to the
    // neighbouring e4m3 value. Left out where its per-tensor scale is below fp32's least normal, which its
    // division by that scale does not survive, or not finite.
    const auto per_tensor = ours.tensor_scale.item<float>();
    if (!std::isfinite(per_tensor) || per_tensor < std::numeric_limits<float>::min()) continue;
    const auto torchao = theirs(key + "/torchao_scales"), least = ours.tensor_scale * std::ldexp(1.0, -6);
    const auto differ = torchao != ours.scales;
    const auto raised_here = differ & (torchao == least) & (ours.scales < least);
    const auto neighbours = (torchao - ours.scales).abs() <= torch::max(torchao, ours.scales) * 0.125;
    EXPECT_TRUE((differ & ~raised_here & ~neighbours).sum().item<int64_t>() == 0) << key;
    EXPECT_LE((differ & ~raised_here).sum().item<int64_t>(), ours.blocks / 100) << key;
    raised += raised_here.sum().item<int64_t>();
  }
  EXPECT_EQ(checked, 16);  // x, w, go, their transposes, the ties, the special matrix and each of its rows
  EXPECT_GT(raised, 0) << "no block that torchao's clamp moves";
}

TEST_F(BlockFormatsParity, BlockwiseFp8IsTransformerEnginesRuleInBothTileShapes) {
  if (IsSkipped()) return;
  for (const auto& item : inputs_) {
    for (int64_t rows : {int64_t{1}, ampbench::amp::kFp8BlockTile}) {
      const auto key = item.key() + "/blockwise/" + std::to_string(rows);
      if (!oracle_.contains(key + "/values")) continue;
      const auto ours = ampbench::amp::quantize_fp8_blocks(item.value(), rows);
      expect_same(ours.scales, theirs(key + "/scales"), key + " scales");
      expect_same(ours.values, theirs(key + "/values"), key + " values");
    }
  }
}

TEST_F(BlockFormatsParity, TheHadamardTransformIsTorchaosMatrixOnTheSameSigns) {
  if (IsSkipped()) return;
  expect_same(ampbench::amp::hadamard_16_matrix(), theirs("rht/matrix"), "the matrix");
  expect_same(ampbench::amp::hadamard_16(inputs_.at("x_t")), theirs("rht/x_t"), "x^T through it");
}

// Every operand's magnitudes vary along both of its axes (SetUp), so that a product blocked along the wrong
// axis, or scaled by the wrong rule, differs.
TEST_F(BlockFormatsParity, TheMxfp8LinearIsTorchaosEmulatedLinearForwardAndBackward) {
  if (IsSkipped()) return;
  for (auto rounding : {ScaleRounding::rceil, ScaleRounding::floor}) {
    const std::string key = "linear/" + std::string(to_string(rounding));
    auto x = inputs_.at("x").clone().requires_grad_(), w = inputs_.at("w").clone().requires_grad_();
    ampbench::amp::Float8Settings settings{LinearRecipe::mxfp8};
    settings.block.mx_rounding = rounding;
    auto y = ampbench::amp::block_scaled_matmul(x, w, settings, std::nullopt);
    y.backward(inputs_.at("go"));
    expect_same(y.detach(), theirs(key + "/output"), key + " output");
    expect_same(x.grad(), theirs(key + "/grad_input"), key + " grad_input");
    expect_same(w.grad(), theirs(key + "/grad_weight"), key + " grad_weight");
  }
}

// torchao has no NVFP4 product that runs on a CPU: the reference is the kernels' product of the reference's
// operands, the block-scaled elements multiplied in fp32 and the two per-tensor scales applied to that
// product, with the parts torchao runs only on a Blackwell GPU (Hadamard, stochastic rounding, 2-D weight
// tiles) off.
TEST_F(BlockFormatsParity, TheNvfp4LinearIsTheKernelsProductOfTheReferencesOperands) {
  if (IsSkipped()) return;
  auto x = inputs_.at("x").clone().requires_grad_(), w = inputs_.at("w").clone().requires_grad_();
  ampbench::amp::Float8Settings settings{LinearRecipe::nvfp4};
  settings.block = {ScaleRounding::rceil, false, false, false};
  auto y = ampbench::amp::block_scaled_matmul(x, w, settings, std::nullopt);
  y.backward(inputs_.at("go"));
  auto product = [&](const std::string& a, const std::string& b) {
    const auto unscaled = at::mm(theirs(a + "/nvfp4/block_values"), theirs(b + "/nvfp4/block_values").t());
    const auto scale = theirs(a + "/nvfp4/tensor_scale") * theirs(b + "/nvfp4/tensor_scale");
    return (unscaled * scale).to(torch::kBFloat16);
  };
  expect_same(y.detach(), product("x", "w"), "output");
  expect_same(x.grad(), product("go", "w_t"), "grad_input");
  expect_same(w.grad(), product("go_t", "x_t"), "grad_weight");
}

// NVFP4's default recipe as a whole (the Hadamard transform on the weight gradient's two operands, 16 x 16
// tiles for the weight and its transpose, gradients rounded stochastically) against TransformerEngine's own
// reference quantizer: each of the six operands, and the three products.
class DefaultNvfp4Recipe : public BlockFormatsParity {
 protected:
  using Role = ampbench::amp::LinearOperand;

  void SetUp() override {
    BlockFormatsParity::SetUp();
    if (IsSkipped()) return;
    if (!oracle_.contains("te/output")) GTEST_SKIP() << "TransformerEngine's reference is not installed";
  }

  // Each product's operand as the layer quantizes it, from the test's matrices.
  std::vector<std::pair<Role, torch::Tensor>> operands() {
    const auto x = inputs_.at("x"), w = inputs_.at("w"), go = inputs_.at("go");
    return {{Role::input, x},
            {Role::weight, w},
            {Role::grad_output, go},
            {Role::weight_transposed, w.t().contiguous()},
            {Role::grad_output_transposed, go.t().contiguous()},
            {Role::input_transposed, x.t().contiguous()}};
  }

  // The operand's e2m1 elements times their block scales, as the kernels multiply them.
  static torch::Tensor block_values(const ampbench::amp::BlockQuantized& q, Role role,
                                    const ampbench::amp::BlockRecipeOptions& options) {
    return ampbench::amp::nvfp4_block_values(q, ampbench::amp::tile_rows(role, LinearRecipe::nvfp4, options));
  }

  torch::Tensor reference(Role role, const std::string& what) {
    return theirs("te/" + std::string(ampbench::amp::to_string(role)) + "/" + what);
  }
};

// Rounded to nearest, which is all the reference implements, every operand is the reference's bit for bit,
// and so is its per-tensor scale (its amax over e4m3's and e2m1's largest).
TEST_F(DefaultNvfp4Recipe, EachOperandRoundedToNearestIsTransformerEnginesReference) {
  ampbench::amp::BlockRecipeOptions nearest;
  nearest.nvfp4_stochastic = false;
  for (const auto& [role, operand] : operands()) {
    const std::string name(ampbench::amp::to_string(role));
    const auto q = ampbench::amp::emulate_operand(operand, role, LinearRecipe::nvfp4, nearest, std::nullopt);
    expect_same(block_values(q, role, nearest), reference(role, "block_values"), name + " elements");
    expect_same(q.tensor_scale, reference(role, "amax") / (448.0 * 6.0), name + " per-tensor scale");
  }
}

// Rounded stochastically, the activations and the weight are unchanged, and each gradient element lies on the
// e2m1 grid at most one step from the reference's nearest, in the reference's blocks and scales.
TEST_F(DefaultNvfp4Recipe, StochasticRoundingMovesOnlyTheGradientsAndAtMostOneStep) {
  const ampbench::amp::BlockRecipeOptions defaults;
  auto generator = at::make_generator<at::CPUGeneratorImpl>(11);
  for (const auto& [role, operand] : operands()) {
    const std::string name(ampbench::amp::to_string(role));
    SCOPED_TRACE(name);
    const auto q = ampbench::amp::emulate_operand(operand, role, LinearRecipe::nvfp4, defaults, generator);
    const auto ours = block_values(q, role, defaults), nearest = reference(role, "block_values");
    const auto scales = reference(role, "block_scales");
    const bool gradient = role == Role::grad_output || role == Role::grad_output_transposed;
    if (!gradient) {
      expect_same(ours, nearest, name);
      continue;
    }
    // In units of the block's scale: e2m1 values, whose neighbours are at most 2 apart (4 and 6). A block
    // whose scale underflowed e4m3 is zeros in both.
    expect_same(ours.masked_select(scales == 0), nearest.masked_select(scales == 0), name + " lost blocks");
    const auto kept = scales != 0;
    const auto elements = ours.masked_select(kept) / scales.masked_select(kept),
               nearest_elements = nearest.masked_select(kept) / scales.masked_select(kept);
    const auto grid = torch::tensor({0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0});
    const auto on_grid = (elements.abs().unsqueeze(-1) == grid).any(-1);
    EXPECT_TRUE(on_grid.all().item<bool>()) << "an element off the e2m1 grid";
    const auto apart = (elements - nearest_elements).abs();
    EXPECT_LE(apart.max().item<double>(), 2.0);
    const auto step = torch::where(
        nearest_elements.abs() >= 4, torch::full_like(apart, 2.0),
        torch::where(nearest_elements.abs() >= 2, torch::ones_like(apart), torch::full_like(apart, 0.5)));
    EXPECT_TRUE((apart <= step).all().item<bool>()) << "an element more than one step from the nearest";
    EXPECT_GT((apart > 0).sum().item<int64_t>(), 0) << "no element rounded away from the nearest";
  }
}

// The layer's three products rounded to nearest are the reference's products of its operands, scaled by the
// two tensors' amaxes as its GEMM scales them: equal to within the last bf16 bit, as the two sum in another
// order.
TEST_F(DefaultNvfp4Recipe, TheLayersProductsAreTheReferencesToTheLastBf16Bit) {
  auto x = inputs_.at("x").clone().requires_grad_(), w = inputs_.at("w").clone().requires_grad_();
  ampbench::amp::Float8Settings settings{LinearRecipe::nvfp4};
  settings.block.nvfp4_stochastic = false;
  auto y = ampbench::amp::block_scaled_matmul(x, w, settings, std::nullopt);
  y.backward(inputs_.at("go"));
  const std::vector<std::pair<std::string, torch::Tensor>> products{
      {"output", y.detach()}, {"grad_input", x.grad()}, {"grad_weight", w.grad()}};
  for (const auto& [name, ours] : products) {
    SCOPED_TRACE(name);
    const auto expected = theirs("te/" + name).to(torch::kFloat32), got = ours.to(torch::kFloat32);
    ASSERT_EQ(got.sizes(), expected.sizes());
    const auto ulp = expected.abs().clamp_min(1e-30) * std::ldexp(1.0, -7);
    EXPECT_TRUE(((got - expected).abs() <= ulp).all().item<bool>())
        << "largest relative difference " << ((got - expected).abs() / expected.abs().clamp_min(1e-30)).max();
  }
}

// The 1 x 128 format's three products are the bf16 products of the reference's operands: activations and
// gradients in 1 x 128 tiles, the weight (and its transpose) in 128 x 128 tiles, each along its product's
// contraction dimension.
TEST_F(BlockFormatsParity, TheBlockwiseLinearMultipliesTheReferencesOperands) {
  if (IsSkipped()) return;
  auto x = inputs_.at("x").clone().requires_grad_(), w = inputs_.at("w").clone().requires_grad_();
  ampbench::amp::Float8Settings settings{LinearRecipe::blockwise};
  auto y = ampbench::amp::block_scaled_matmul(x, w, settings, std::nullopt);
  y.backward(inputs_.at("go"));
  auto product = [&](const std::string& a, int a_rows, const std::string& b, int b_rows) {
    auto values = [&](const std::string& name, int rows) {
      return theirs(name + "/blockwise/" + std::to_string(rows) + "/values").to(torch::kBFloat16);
    };
    return at::mm(values(a, a_rows), values(b, b_rows).t());
  };
  expect_same(y.detach(), product("x", 1, "w", 128), "output");
  expect_same(x.grad(), product("go", 1, "w_t", 128), "grad_input");
  expect_same(w.grad(), product("go_t", 1, "x_t", 1), "grad_weight");
}

// The bytes at::_scaled_mm_v2 gets are the bytes torchao gives torch._scaled_mm: e4m3 and packed e2m1
// elements, E8M0 and e4m3 block scales through the 32_4_4 swizzle.
TEST_F(BlockFormatsParity, TheKernelOperandsAreTheBytesTorchaoHandsToScaledMm) {
  if (IsSkipped()) return;
  expect_same(ampbench::amp::swizzle_32_4_4(scale_matrix()), theirs("swizzle"), "the swizzle");
  for (const char* name : {"x", "w"}) {
    const auto mx = ampbench::amp::kernel_operand(
        ampbench::amp::quantize_mxfp8(inputs_.at(name), ScaleRounding::rceil), LinearRecipe::mxfp8, 1);
    const auto nv = ampbench::amp::kernel_operand(ampbench::amp::quantize_nvfp4(inputs_.at(name)),
                                                  LinearRecipe::nvfp4, 1);
    const std::string key = std::string(name) + "/kernel/";
    expect_same(mx.data.view(torch::kUInt8), theirs(key + "mxfp8/data"), key + "mxfp8 data");
    expect_same(mx.scales[0].view(torch::kUInt8), theirs(key + "mxfp8/scales"), key + "mxfp8 scales");
    expect_same(nv.data.view(torch::kUInt8), theirs(key + "nvfp4/data"), key + "nvfp4 data");
    expect_same(nv.scales[0].view(torch::kUInt8), theirs(key + "nvfp4/scales"), key + "nvfp4 scales");
  }
}

}  // namespace
