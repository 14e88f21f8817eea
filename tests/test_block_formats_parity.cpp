// The block-scaled formats bit for bit against their references (tests/parity/block_formats_oracle.py):
// torchao 0.18's MXFP8 (both scale roundings) and NVFP4 block scales, the Blackwell kernels' NVFP4 element
// encoding, TransformerEngine's blockwise fp8 rule written from its definition, torchao's Hadamard matrix on
// the same signs, torchao's emulated MXFP8 linear, the kernels' product of NVFP4 operands, and the operands
// as torchao hands them to torch._scaled_mm
// (block_scaled_kernels.h). Without torchao these tests skip and say why.
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

// The block scales torchao's, the elements encoded by the kernels' reciprocal, on random matrices and on each
// edge: blocks of zeros, values far below the tensor's largest, bf16's largest, inf and NaN.
TEST_F(BlockFormatsParity, Nvfp4ScalesAreTorchaosAndItsElementsTheKernelsEncoding) {
  if (IsSkipped()) return;
  int checked = 0;
  for (const auto& item : inputs_) {
    const std::string key = item.key() + "/nvfp4";
    if (!oracle_.contains(key + "/values")) continue;
    const auto ours = ampbench::amp::quantize_nvfp4(item.value());
    expect_same(ours.scales, theirs(key + "/scales"), key + " scales");
    expect_same(ours.values, theirs(key + "/values"), key + " values");
    expect_same(ours.tensor_scale, theirs(key + "/tensor_scale"), key + " per-tensor scale");
    expect_same(ampbench::amp::nvfp4_block_values(ours, 1), theirs(key + "/block_values"), key + " blocks");
    ++checked;
  }
  EXPECT_EQ(checked, 16);  // x, w, go, their transposes, the ties, the special matrix and each of its rows
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
