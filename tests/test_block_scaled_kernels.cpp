// The block-scaled operands as the GPU's kernels take them (block_scaled_kernels.h), decoded here by the
// layouts LibTorch's at::_scaled_mm_v2 documents, independently of the packing code: each must decode to the
// emulation's values exactly. And the probe that decides where the kernels run (block_kernel_probe.h), with
// stand-in products: a faithful one passes; one that reads a scale from the wrong block, reads elements in
// the wrong order or refuses does not. Last, the kernels against the emulation on a GPU (*OnAGpu, skipped
// elsewhere). Parity of the swizzle and the bytes with torchao's is tests/test_block_formats_parity.cpp's.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include "amp/block_kernel_probe.h"
#include "amp/block_scaled_linear.h"
#include "amp/mode_support.h"

namespace {

using ampbench::amp::BlockQuantized;
using ampbench::amp::KernelOperand;
using ampbench::amp::LinearOperand;
using ampbench::amp::LinearRecipe;

int64_t round_up(int64_t n, int64_t multiple) { return (n + multiple - 1) / multiple * multiple; }

// The [rows, columns] matrix of scales from cuBLAS's 32_4_4 layout: the scale of row r and block c of a
// 128 x 4 tile sits at (r % 32) x 16 + (r / 32) x 4 + c of the tile's 512, tiles in row-major order.
torch::Tensor unswizzle(const torch::Tensor& flat, int64_t rows, int64_t columns) {
  const auto values = flat.to(torch::kFloat32).contiguous();
  const int64_t column_tiles = round_up(columns, 4) / 4;
  auto out = torch::empty({rows, columns});
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < columns; ++c) {
      const int64_t tile = (r / 128) * column_tiles + c / 4;
      const int64_t rr = r % 128;
      out[r][c] = values[tile * 512 + (rr % 32) * 16 + (rr / 32) * 4 + c % 4];
    }
  }
  return out;
}

// e2m1 codes two to a byte, the first in the low nibble, to their values.
torch::Tensor unpack_e2m1(const torch::Tensor& packed) {
  const auto bytes = packed.view(torch::kUInt8).to(torch::kInt64);
  const auto codes = torch::stack({bytes.bitwise_and(15), bytes.bitwise_right_shift(4)}, -1).flatten(-2);
  const auto magnitudes = torch::tensor({0.0f, 0.5f, 1.0f, 1.5f, 2.0f, 3.0f, 4.0f, 6.0f});
  const auto magnitude = magnitudes.index({codes.bitwise_and(7)});
  return torch::where(codes.bitwise_and(8) != 0, -magnitude, magnitude);
}

// A kernel operand's values as the kernel reads them, in fp32: elements times their scales.
torch::Tensor decode(const KernelOperand& k, LinearRecipe recipe) {
  if (recipe == LinearRecipe::nvfp4) {
    const auto elements = unpack_e2m1(k.data);
    const auto scales = unswizzle(k.scales[0], elements.size(0), elements.size(1) / 16);
    const auto decode = k.scales[1].reshape({}) * scales;
    return elements * decode.repeat_interleave(16, 1);
  }
  const auto elements = k.data.to(torch::kFloat32);
  if (recipe == LinearRecipe::mxfp8)
    return elements *
           unswizzle(k.scales[0], elements.size(0), elements.size(1) / 32).repeat_interleave(32, 1);
  const auto& scale = k.scales[0];
  if (scale.size(0) == elements.size(0))  // 1 x 128: [rows, K / 128]
    return elements * scale.repeat_interleave(128, 1);
  // 128 x 128: [K / 128 padded to 4, rows / 128], stored transposed
  const auto tiles = scale.t().slice(1, 0, elements.size(1) / 128);
  return elements * tiles.repeat_interleave(128, 0).repeat_interleave(128, 1);
}

torch::Tensor operand(int64_t rows, int64_t columns, uint64_t seed) {
  torch::manual_seed(seed);
  const auto steps = torch::arange(columns).floor_divide(16).remainder(9).to(torch::kFloat32) - 4;
  return (torch::randn({rows, columns}) * torch::exp2(steps)).to(torch::kBFloat16);
}

struct Case {
  LinearRecipe recipe;
  LinearOperand role;
};

class KernelOperands : public ::testing::TestWithParam<Case> {};

// 256 rows (two swizzle tiles) of 384 columns: 12 MX blocks (3 swizzle columns of 4), 24 NVFP4 blocks,
// three 1 x 128 blocks, padded to 4 in a weight's tile scales.
TEST_P(KernelOperands, DecodeToTheEmulationsValuesInTheLayoutLibTorchDocuments) {
  const auto [recipe, role] = GetParam();
  const ampbench::amp::BlockRecipeOptions options;
  const auto q = ampbench::amp::emulate_operand(operand(256, 384, 3), role, recipe, options, std::nullopt);
  const auto k = ampbench::amp::kernel_operand(q, recipe, ampbench::amp::tile_rows(role, recipe, options));
  EXPECT_TRUE(decode(k, recipe).equal(q.values));
  // Quantized for the kernels alone, without the values they do not read: the same operand.
  const auto codes_only =
      ampbench::amp::emulate_operand(operand(256, 384, 3), role, recipe, options, std::nullopt, false);
  EXPECT_FALSE(codes_only.values.defined());
  const auto k_alone =
      ampbench::amp::kernel_operand(codes_only, recipe, ampbench::amp::tile_rows(role, recipe, options));
  EXPECT_TRUE(decode(k_alone, recipe).equal(q.values));
  ASSERT_EQ(k.scales.size(), k.recipes.size());
  switch (recipe) {
    case LinearRecipe::mxfp8:
      EXPECT_EQ(k.data.scalar_type(), torch::kFloat8_e4m3fn);
      EXPECT_EQ(k.scales[0].scalar_type(), torch::kFloat8_e8m0fnu);
      EXPECT_EQ(k.scales[0].numel(), round_up(256, 128) * round_up(384 / 32, 4));
      break;
    case LinearRecipe::nvfp4:
      EXPECT_EQ(k.data.scalar_type(), torch::kFloat4_e2m1fn_x2);
      EXPECT_EQ(k.data.sizes(), (std::vector<int64_t>{256, 192}));
      EXPECT_EQ(k.scales[0].scalar_type(), torch::kFloat8_e4m3fn);
      EXPECT_EQ(k.scales[0].numel(), round_up(256, 128) * round_up(384 / 16, 4));
      EXPECT_EQ(k.scales[1].numel(), 1);
      break;
    default:
      EXPECT_EQ(k.data.scalar_type(), torch::kFloat8_e4m3fn);
      EXPECT_EQ(k.scales[0].scalar_type(), torch::kFloat32);
      if (k.scales[0].size(0) == 256) {  // 1 x 128: outer-dimension-major
        EXPECT_EQ(k.scales[0].strides(), (std::vector<int64_t>{1, 256}));
      } else {  // 128 x 128: [round_up(K / 128, 4), rows / 128], strides (1, round_up(K / 128, 4))
        EXPECT_EQ(k.scales[0].sizes(), (std::vector<int64_t>{4, 2}));
        EXPECT_EQ(k.scales[0].strides(), (std::vector<int64_t>{1, 4}));
      }
  }
}

INSTANTIATE_TEST_SUITE_P(EveryTileShape, KernelOperands,
                         ::testing::Values(Case{LinearRecipe::mxfp8, LinearOperand::input},
                                           Case{LinearRecipe::mxfp8, LinearOperand::weight},
                                           Case{LinearRecipe::nvfp4, LinearOperand::input},
                                           Case{LinearRecipe::nvfp4, LinearOperand::weight},  // 16 x 16 tiles
                                           Case{LinearRecipe::nvfp4,
                                                LinearOperand::input_transposed},  // Hadamard first
                                           Case{LinearRecipe::blockwise, LinearOperand::input},
                                           Case{LinearRecipe::blockwise, LinearOperand::weight}),
                         [](const auto& info) {
                           return std::string(ampbench::amp::to_string(info.param.recipe)) + "_" +
                                  std::string(ampbench::amp::to_string(info.param.role));
                         });

TEST(KernelOperands, TheE2m1PackingPutsTheFirstCodeInTheLowNibbleAndTheSignInBitThree) {
  const auto values = torch::tensor({0.5f, -6.0f, -0.0f, 3.0f});
  const auto bytes = ampbench::amp::pack_e2m1(values).view(torch::kUInt8);
  EXPECT_EQ(bytes[0].item<int>(), 0x01 | (0x0F << 4));  // 0.5 is 1; -6 is 8 | 7
  EXPECT_EQ(bytes[1].item<int>(), 0x08 | (0x05 << 4));  // -0 keeps its sign; 3 is 5
}

TEST(KernelOperands, TheSwizzlePadsWithZerosToWholeTiles) {
  const auto scales = torch::arange(1, 1 + 130 * 5, torch::kFloat32).reshape({130, 5});
  const auto flat = ampbench::amp::swizzle_32_4_4(scales);
  EXPECT_EQ(flat.numel(), 256 * 8);
  EXPECT_TRUE(unswizzle(flat, 130, 5).equal(scales));
  EXPECT_EQ(flat.count_nonzero().item<int64_t>(), 130 * 5);
}

// A stand-in for the kernel: the operands as decoded above, multiplied in fp32 and rounded to bf16, with
// `wrong` applied to b's decoded values first.
ampbench::amp::KernelProduct decoding_product(LinearRecipe recipe,
                                              std::function<torch::Tensor(torch::Tensor)> wrong = {}) {
  return [recipe, wrong](const KernelOperand& a, const KernelOperand& b, c10::ScalarType dtype) {
    auto b_values = decode(b, recipe);
    if (wrong) b_values = wrong(b_values);
    return at::mm(decode(a, recipe), b_values.t()).to(dtype);
  };
}

class KernelProbe : public ::testing::TestWithParam<LinearRecipe> {};

TEST_P(KernelProbe, PassesAProductOfTheSameValues) {
  EXPECT_EQ(ampbench::amp::probe_kernels(GetParam(), torch::kCPU, decoding_product(GetParam())),
            std::nullopt);
}

// The first block's scale for the second's: the blocks' magnitudes differ by a power of two.
TEST_P(KernelProbe, FindsAScaleReadFromTheWrongBlock) {
  const auto shifted = [](torch::Tensor values) {
    auto out = values.clone();
    out.slice(1, 16, 32).mul_(2);
    return out;
  };
  const auto why =
      ampbench::amp::probe_kernels(GetParam(), torch::kCPU, decoding_product(GetParam(), shifted));
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("further from the emulation's than the rounding allows"), std::string::npos) << *why;
}

// Each pair of elements swapped, as a kernel reading e2m1 nibbles in the other order would.
TEST_P(KernelProbe, FindsElementsReadInTheWrongOrder) {
  const auto swapped = [](torch::Tensor values) {
    return values.reshape({values.size(0), -1, 2}).flip(-1).reshape(values.sizes());
  };
  EXPECT_TRUE(ampbench::amp::probe_kernels(GetParam(), torch::kCPU, decoding_product(GetParam(), swapped)));
}

TEST_P(KernelProbe, SaysWhatLibTorchRefused) {
  const auto refusing = [](const KernelOperand&, const KernelOperand&, c10::ScalarType) -> torch::Tensor {
    TORCH_CHECK(false, "no kernel for this\nsecond line");
  };
  const auto why = ampbench::amp::probe_kernels(GetParam(), torch::kCPU, refusing);
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("refused a probe product: no kernel for this"), std::string::npos) << *why;
  EXPECT_EQ(why->find("second line"), std::string::npos) << *why;
}

// LibTorch's CPU at::_scaled_mm_v2 has no block-scaled product: the real call is refused, in its words.
TEST_P(KernelProbe, TheCpusOwnScaledMmIsRefused) {
  const auto why = ampbench::amp::probe_kernels(GetParam(), torch::kCPU, ampbench::amp::kernel_product);
  ASSERT_TRUE(why);
  EXPECT_EQ(why->rfind("LibTorch's at::_scaled_mm_v2 refused a probe product: ", 0), 0u) << *why;
  EXPECT_EQ(ampbench::amp::kernels_refusal(GetParam(), torch::kCPU), "the CPU has no block-scaled kernels");
}

INSTANTIATE_TEST_SUITE_P(EveryBlockScaledRecipe, KernelProbe,
                         ::testing::Values(LinearRecipe::mxfp8, LinearRecipe::nvfp4, LinearRecipe::blockwise),
                         [](const auto& info) { return std::string(ampbench::amp::to_string(info.param)); });

// A block-scaled mode runs on the kernels where none refuses it, with no caveat; otherwise it is emulated and
// its caveat says why.
TEST(KernelProbe, DecidesTheModesSupportAndItsCaveat) {
  using ampbench::amp::PrecisionMode;
  const ampbench::amp::ComputeCapability blackwell{10, 0};
  const auto none = [](LinearRecipe) -> std::optional<std::string> { return std::nullopt; };
  const auto on_kernels = ampbench::amp::check_mode_support(PrecisionMode::mxfp8, c10::DeviceType::CUDA,
                                                            blackwell, std::nullopt, none);
  EXPECT_FALSE(on_kernels.skip_reason);
  EXPECT_FALSE(on_kernels.caveat);
  const auto refused = [](LinearRecipe) -> std::optional<std::string> { return "the probe's reason"; };
  const auto emulated = ampbench::amp::check_mode_support(PrecisionMode::nvfp4, c10::DeviceType::CUDA,
                                                          blackwell, std::nullopt, refused);
  ASSERT_TRUE(emulated.caveat);
  EXPECT_EQ(emulated.caveat->kind, ampbench::amp::ModeCaveat::Kind::emulated);
  EXPECT_NE(emulated.caveat->reason.find("emulated here, since the probe's reason:"), std::string::npos);
}

// On a GPU with the recipe's kernels, a layer's three products on them are the emulation's to within
// rounding, forward and backward (the whole recipe on: Hadamard transform, 2-D weight tiles; stochastic
// rounding off, so that both draw nothing). A GPU of the architecture must pass the probe; a GPU of another
// architecture skips and says why.
TEST_P(KernelProbe, TheLayersProductsOnTheKernelsAreTheEmulationsOnAGpu) {
  if (!torch::cuda::is_available()) GTEST_SKIP() << "no GPU";
  if (auto why = ampbench::amp::architecture_refusal(GetParam(), torch::kCUDA)) GTEST_SKIP() << *why;
  const auto refusal = ampbench::amp::kernels_refusal(GetParam(), torch::kCUDA);
  ASSERT_FALSE(refusal) << *refusal;
  const auto cuda = torch::TensorOptions(torch::kCUDA);
  const auto x = operand(256, 512, 5).to(cuda), w = operand(384, 512, 6).to(torch::kCUDA, torch::kFloat32),
             go = operand(256, 384, 7).to(cuda);
  ampbench::amp::Float8Settings settings{GetParam()};
  settings.block.nvfp4_stochastic = false;
  auto products = [&](bool kernels) {
    settings.kernels = kernels;
    auto xi = x.clone().requires_grad_(), wi = w.clone().requires_grad_();
    auto y = ampbench::amp::block_scaled_matmul(xi, wi, settings, std::nullopt);
    y.backward(go);
    return std::vector<torch::Tensor>{y.detach(), xi.grad(), wi.grad()};
  };
  const auto emulated = products(false), on_kernels = products(true);
  for (size_t i = 0; i < emulated.size(); ++i) {
    SCOPED_TRACE(i);
    const auto e = emulated[i].to(torch::kFloat32), k = on_kernels[i].to(torch::kFloat32);
    EXPECT_LE((k - e).norm().item<double>(), e.norm().item<double>() / 128);
  }
}

}  // namespace
