// The float8 linear layer of the fp8 modes: its scales and casts, its three products against quantizing
// with the same scales and multiplying in fp32, its edge cases, and when a layer runs in float8.
#include <cmath>
#include <limits>

#include <gtest/gtest.h>
#include <torch/torch.h>

#include "amp/float8_linear.h"
#include "amp/float8_scaling.h"
#include "amp/mode_support.h"
#include "measure/cpu_tracking_allocator.h"
#include "measure/gpu_info.h"

namespace {

using ampbench::amp::Float8Layers;
using ampbench::amp::Float8Operand;
using ampbench::amp::Float8Scope;
using ampbench::amp::Float8Settings;
using ampbench::amp::LinearRecipe;
using ampbench::amp::PrecisionMode;

constexpr auto kE4m3 = c10::ScalarType::Float8_e4m3fn;
constexpr auto kE5m2 = c10::ScalarType::Float8_e5m2;

double scale_of(double amax, c10::ScalarType format, LinearRecipe recipe = LinearRecipe::tensorwise) {
  return ampbench::amp::float8_scale(torch::tensor(amax), format, recipe).item<double>();
}

// x as the float8 product sees it: cast with `scale` along its rows (or whole), then back to fp32 and
// divided by the scale.
torch::Tensor dequantized(const torch::Tensor& x, LinearRecipe recipe, c10::ScalarType format) {
  auto amax = ampbench::amp::float8_amax(x, recipe, -1);
  auto scale = ampbench::amp::float8_scale(amax, format, recipe);
  return ampbench::amp::to_float8(x, scale, format).to(torch::kFloat) / scale;
}

struct Products {
  torch::Tensor output, grad_input, grad_weight;
};

// The three products of a linear layer quantized as the recipe says, multiplied in fp32.
Products reference(const torch::Tensor& x, const torch::Tensor& w, const torch::Tensor& go,
                   LinearRecipe recipe) {
  using ampbench::amp::float8_format;
  const auto in = float8_format(recipe, Float8Operand::input),
             wt = float8_format(recipe, Float8Operand::weight),
             g = float8_format(recipe, Float8Operand::grad_output);
  return {dequantized(x, recipe, in).mm(dequantized(w, recipe, wt).t()),
          dequantized(go, recipe, g).mm(dequantized(w.t().contiguous(), recipe, wt).t()),
          dequantized(go.t().contiguous(), recipe, g).mm(dequantized(x.t().contiguous(), recipe, in).t())};
}

Products ours(const torch::Tensor& x, const torch::Tensor& w, const torch::Tensor& go,
              const Float8Settings& s) {
  auto input = x.clone().requires_grad_(), weight = w.clone().requires_grad_();
  auto output = ampbench::amp::float8_matmul(input, weight, s);
  output.backward(go);
  return {output.detach(), input.grad(), weight.grad()};
}

// Why the float8 products cannot run on a GPU here; nullopt when they can.
std::optional<std::string> why_no_float8_gpu() {
  if (!torch::cuda::is_available()) return "no CUDA GPU";
  const auto gpu = ampbench::measure::gpu_details(0);
  if (!gpu) return "no GPU details";
  return ampbench::amp::check_mode_support(
             PrecisionMode::fp8, c10::DeviceType::CUDA,
             ampbench::amp::ComputeCapability{gpu->capability_major, gpu->capability_minor})
      .skip_reason;
}

double relative_error(const torch::Tensor& a, const torch::Tensor& b) {
  return ((a - b).abs().max() / b.abs().max()).item<double>();
}

TEST(Float8Scaling, TheScaleMapsTheAmaxOntoTheFormatsLargestValue) {
  EXPECT_FLOAT_EQ(scale_of(2.0, kE4m3), 224.0f);
  EXPECT_FLOAT_EQ(scale_of(2.0, kE5m2), 28672.0f);
  EXPECT_FLOAT_EQ(scale_of(2.0, kE4m3, LinearRecipe::rowwise), 128.0f);      // rounded down to a power of 2
  EXPECT_FLOAT_EQ(scale_of(0.0, kE4m3), static_cast<float>(448.0 / 1e-12));  // finite: no division by 0
  EXPECT_EQ(scale_of(std::numeric_limits<double>::infinity(), kE4m3), 0.0);
  EXPECT_TRUE(std::isnan(scale_of(std::nan(""), kE4m3)));
}

TEST(Float8Scaling, TheCastSaturatesValuesBeyondTheFormatsRange) {
  auto x = torch::tensor({1e6, -1e6, 1.0, std::nan("")});
  auto cast = ampbench::amp::to_float8(x, torch::tensor(1.0f), kE4m3).to(torch::kFloat);
  EXPECT_EQ(cast[0].item<float>(), 448.0f);
  EXPECT_EQ(cast[1].item<float>(), -448.0f);
  EXPECT_EQ(cast[2].item<float>(), 1.0f);
  EXPECT_TRUE(std::isnan(cast[3].item<float>()));
  EXPECT_EQ(
      ampbench::amp::to_float8(x.narrow(0, 0, 1), torch::tensor(1.0f), kE5m2).to(torch::kFloat).item<float>(),
      57344.0f);
}

TEST(Float8Linear, TensorwiseProductsEqualQuantizingAndMultiplyingInFp32) {
  torch::manual_seed(0);
  auto x = torch::randn({32, 48}), w = torch::randn({16, 48}) * 0.1, go = torch::randn({32, 16}) * 1e-3;
  const auto want = reference(x, w, go, LinearRecipe::tensorwise);
  const auto got = ours(x, w, go, {LinearRecipe::tensorwise});
  EXPECT_LT(relative_error(got.output, want.output), 1e-6);
  EXPECT_LT(relative_error(got.grad_input, want.grad_input), 1e-6);
  EXPECT_LT(relative_error(got.grad_weight, want.grad_weight), 1e-6);
  // Float8 is not fp32: the products differ from the unquantized ones by float8's rounding.
  EXPECT_GT(relative_error(got.output, x.mm(w.t())), 1e-3);
}

// Normal values with rows and columns of magnitudes a million apart: more than e4m3's range, so an
// operand scaled along the wrong axis flushes its small rows or columns to zero.
torch::Tensor graded(int64_t rows, int64_t columns) {
  return torch::randn({rows, columns}) * torch::logspace(-3, 3, rows).unsqueeze(1) *
         torch::logspace(3, -3, columns).unsqueeze(0);
}

// The largest error of `a` against `b`, each element's measured against the smaller of its row's and its
// column's largest value, which bound it: a small row's error counts as much as a large one's.
double graded_error(const torch::Tensor& a, const torch::Tensor& b) {
  const auto magnitude = b.abs();
  const auto rows = std::get<0>(magnitude.max(1, true)), columns = std::get<0>(magnitude.max(0, true));
  return ((a - b).abs() / torch::minimum(rows, columns)).max().item<double>();
}

TEST(Float8Linear, RowwiseProductsEqualQuantizingAndMultiplyingToBf16Rounding) {
  torch::manual_seed(1);
  auto x = graded(32, 48), w = graded(16, 48), go = graded(32, 16);
  const auto want = reference(x, w, go, LinearRecipe::rowwise);
  const auto got = ours(x, w, go, {LinearRecipe::rowwise});
  // The rowwise kernel writes bf16: two of bf16's units in the last place.
  EXPECT_LT(graded_error(got.output, want.output), 8e-3);
  EXPECT_LT(graded_error(got.grad_input, want.grad_input), 8e-3);
  EXPECT_LT(graded_error(got.grad_weight, want.grad_weight), 8e-3);
  // A tensorwise cast of the same operands loses their small rows: rowwise scaling is not tensorwise.
  const auto tensorwise = reference(x, w, go, LinearRecipe::tensorwise);
  EXPECT_GT(graded_error(tensorwise.output, want.output), 0.5);
}

TEST(Float8Linear, AnAllZeroInputGivesZerosAndANonFiniteOneGivesNonFiniteOutputs) {
  auto w = torch::randn({16, 16});
  for (auto recipe : {LinearRecipe::tensorwise, LinearRecipe::rowwise}) {
    SCOPED_TRACE(std::string(ampbench::amp::to_string(recipe)));
    const auto zeros = ours(torch::zeros({16, 16}), w, torch::ones({16, 16}), {recipe});
    EXPECT_EQ(zeros.output.abs().max().item<float>(), 0.0f);
    EXPECT_TRUE(zeros.grad_input.isfinite().all().item<bool>());
    EXPECT_EQ(zeros.grad_weight.abs().max().item<float>(), 0.0f);
    for (double bad : {std::numeric_limits<double>::infinity(), std::nan("")}) {
      auto x = torch::randn({16, 16});
      x[3][5] = bad;
      const auto out = ampbench::amp::float8_matmul(x, w, {recipe});
      // The row holding it (and, tensorwise, every row) is not finite: the trainer sees a diverged loss.
      EXPECT_FALSE(out[3].isfinite().all().item<bool>());
    }
  }
}

TEST(Float8Linear, APlantedScaleFactorSaturatesTheProducts) {
  torch::manual_seed(2);
  auto x = torch::randn({16, 32}), w = torch::randn({16, 32}), go = torch::randn({16, 16});
  const auto want = reference(x, w, go, LinearRecipe::tensorwise);
  const auto broken = ours(x, w, go, {LinearRecipe::tensorwise, 1e6});
  EXPECT_GT(relative_error(broken.output, want.output), 0.5);
}

TEST(Float8Linear, OnlyAFloat8ScopeWithShapesOfSixteensRunsInFloat8) {
  torch::manual_seed(3);
  auto x = torch::randn({16, 32}), w = torch::randn({16, 32}).requires_grad_(), b = torch::randn({16});
  const auto plain = at::linear(x, w, b);
  EXPECT_TRUE(ampbench::amp::linear(x, w, b).equal(plain));  // no scope
  Float8Layers layers;
  auto narrow = torch::randn({10, 32});  // 10 outputs: not a multiple of 16
  torch::Tensor float8;
  {
    Float8Scope scope(Float8Settings{LinearRecipe::tensorwise}, &layers);
    float8 = ampbench::amp::linear(x, w, b);
    EXPECT_TRUE(float8.equal(ampbench::amp::float8_matmul(x, w, {LinearRecipe::tensorwise}) + b));
    EXPECT_FALSE(float8.equal(plain));
    EXPECT_TRUE(ampbench::amp::linear(x, narrow).equal(at::linear(x, narrow)));
    const auto empty = torch::zeros({0, 32});  // no rows: nothing to scale
    EXPECT_EQ(ampbench::amp::linear(empty, w, b).sizes(), (std::vector<int64_t>{0, 16}));
    {
      Float8Scope none(std::nullopt);  // a mode without float8, inside, closes it
      EXPECT_TRUE(ampbench::amp::linear(x, w, b).equal(plain));
    }
  }
  EXPECT_TRUE(ampbench::amp::linear(x, w, b).equal(plain));  // closed again
  float8.sum().backward();
  ASSERT_EQ(layers.records().size(), 2u);  // the empty call counts as a bf16 call of the first layer
  const auto& first = *layers.records()[0];
  EXPECT_EQ(first.key, w.unsafeGetTensorImpl());  // a reference model's layer is its weight parameter
  EXPECT_EQ(first.float8_calls, 1);
  EXPECT_EQ(first.bf16_calls, 1);
  ASSERT_TRUE(first.bf16_shape);
  EXPECT_EQ(ampbench::amp::why_not_float8(*first.bf16_shape, LinearRecipe::tensorwise),
            "0 x 32 -> 16: empty");
  EXPECT_NEAR(first.input_amax.item<float>(), x.abs().max().item<float>(), 0);
  EXPECT_NEAR(first.weight_amax.item<float>(), w.abs().max().item<float>(), 0);
  EXPECT_EQ(first.grad_output_amax.item<float>(), 1.0f);  // backward recorded its output gradient's amax
  const auto& second = *layers.records()[1];
  EXPECT_EQ(second.float8_calls, 0);
  EXPECT_EQ(second.bf16_calls, 1);
  ASSERT_TRUE(second.bf16_shape);
  EXPECT_EQ(ampbench::amp::why_not_float8(*second.bf16_shape, LinearRecipe::tensorwise),
            "16 x 32 -> 10: not all multiples of 16");
}

// A weight computed anew each call (weight_norm, a merged LoRA W + B @ A, w * scale) is one layer when the
// caller names it: one record over many steps, which holds none of the weights, so memory stays flat.
TEST(Float8Linear, ANamedLayerWithAComputedWeightKeepsOneRecordAndNoWeight) {
  torch::manual_seed(4);
  const auto x = torch::randn({16, 32});
  const auto base = torch::randn({16, 32}).requires_grad_(), scale = torch::ones({16, 1}).requires_grad_();
  const std::string layer = "proj";
  using ampbench::measure::CpuTrackingAllocator;
  CpuTrackingAllocator::install();
  Float8Layers layers;
  int64_t held_after_first = 0;
  for (int step = 0; step < 50; ++step) {
    {
      Float8Scope scope(Float8Settings{LinearRecipe::tensorwise}, &layers);
      ampbench::amp::linear(x, base * scale, {}, &layer).sum().backward();
    }
    if (step == 0) held_after_first = CpuTrackingAllocator::current_bytes();
  }
  ASSERT_EQ(layers.records().size(), 1u);
  EXPECT_EQ(layers.records()[0]->name, "proj");
  EXPECT_EQ(layers.records()[0]->float8_calls, 50);
  // A record a call holding its weight would add 2 KiB a step.
  EXPECT_LE(CpuTrackingAllocator::current_bytes() - held_after_first, 512);
}

TEST(Float8Linear, EveryDimensionMustBeANonZeroMultipleOfSixteen) {
  using ampbench::amp::float8_takes;
  using ampbench::amp::LinearShape;
  EXPECT_TRUE(float8_takes(LinearShape{32, 16, 48}, LinearRecipe::tensorwise));
  for (const auto& shape : {LinearShape{8, 16, 16}, LinearShape{16, 24, 16}, LinearShape{16, 16, 40}}) {
    EXPECT_FALSE(float8_takes(shape, LinearRecipe::tensorwise));
    EXPECT_TRUE(ampbench::amp::why_not_float8(shape, LinearRecipe::tensorwise)
                    .ends_with(": not all multiples of 16"));
  }
  for (const auto& shape : {LinearShape{0, 16, 16}, LinearShape{16, 0, 16}, LinearShape{16, 16, 0}}) {
    EXPECT_FALSE(float8_takes(shape, LinearRecipe::tensorwise));
    EXPECT_TRUE(ampbench::amp::why_not_float8(shape, LinearRecipe::tensorwise).ends_with(": empty"));
  }
}

TEST(Float8Linear, ItsOutputTakesAnInPlaceOpAsAPlainLinearLayersDoes) {
  // Models apply in-place activations to a bias-less layer's output; a view made inside the autograd
  // function would refuse them.
  torch::manual_seed(3);
  auto x = torch::randn({2, 16, 32}, torch::requires_grad()),
       w = torch::randn({16, 32}, torch::requires_grad());
  Float8Scope scope(Float8Settings{});
  auto out = ampbench::amp::linear(x, w);
  out.relu_();
  out.sum().backward();
  EXPECT_EQ(out.sizes(), (std::vector<int64_t>{2, 16, 16}));
  EXPECT_TRUE(x.grad().defined());
  EXPECT_TRUE(w.grad().defined());
}

// On a GPU at::_scaled_mm takes its first operand row-major and its second column-major only; the layer
// takes inputs and weights of any layout (transposed views here), with the same products.
TEST(Float8Linear, OperandsOfAnyLayoutGiveTheSameProductsOnAGpu) {
  if (auto why = why_no_float8_gpu()) GTEST_SKIP() << *why;
  torch::manual_seed(4);
  const auto cuda = torch::TensorOptions(torch::kCUDA);
  auto x = torch::randn({48, 32}, cuda).t(), w = torch::randn({48, 16}, cuda).t(),
       go = torch::randn({32, 16}, cuda);
  for (auto recipe : {LinearRecipe::tensorwise, LinearRecipe::rowwise}) {
    SCOPED_TRACE(std::string(ampbench::amp::to_string(recipe)));
    const auto transposed = ours(x.to(torch::kBFloat16), w, go.to(torch::kBFloat16), {recipe});
    const auto contiguous =
        ours(x.contiguous().to(torch::kBFloat16), w.contiguous(), go.to(torch::kBFloat16), {recipe});
    EXPECT_TRUE(transposed.output.equal(contiguous.output));
    EXPECT_TRUE(transposed.grad_input.equal(contiguous.grad_input));
    EXPECT_TRUE(transposed.grad_weight.equal(contiguous.grad_weight));
  }
}

TEST(Float8Linear, TheFp8ModesAreBf16WithARecipeAndTheOthersHaveNone) {
  EXPECT_EQ(ampbench::amp::recipe_of(PrecisionMode::fp8).linear_recipe, LinearRecipe::tensorwise);
  EXPECT_EQ(ampbench::amp::recipe_of(PrecisionMode::fp8_rowwise).linear_recipe, LinearRecipe::rowwise);
  for (auto mode : {PrecisionMode::fp32, PrecisionMode::tf32, PrecisionMode::fp16, PrecisionMode::bf16})
    EXPECT_FALSE(ampbench::amp::recipe_of(mode).linear_recipe);
  EXPECT_EQ(ampbench::amp::recipe_of(PrecisionMode::fp8).autocast, c10::ScalarType::BFloat16);
  EXPECT_EQ(ampbench::amp::recipe_of(PrecisionMode::fp8_rowwise).autocast, c10::ScalarType::BFloat16);
  EXPECT_EQ(ampbench::amp::recipe_of(PrecisionMode::fp8).gradient_guard, ampbench::amp::GradientGuard::none);
  using ampbench::amp::float8_format;
  EXPECT_EQ(float8_format(LinearRecipe::tensorwise, Float8Operand::input), kE4m3);
  EXPECT_EQ(float8_format(LinearRecipe::tensorwise, Float8Operand::weight), kE4m3);
  EXPECT_EQ(float8_format(LinearRecipe::tensorwise, Float8Operand::grad_output), kE5m2);
  for (auto operand : {Float8Operand::input, Float8Operand::weight, Float8Operand::grad_output})
    EXPECT_EQ(float8_format(LinearRecipe::rowwise, operand), kE4m3);
  EXPECT_EQ(ampbench::amp::parse_precision_mode("fp8-rowwise"), PrecisionMode::fp8_rowwise);
  const auto& defaults = ampbench::amp::default_precision_modes();
  EXPECT_EQ(std::count(defaults.begin(), defaults.end(), PrecisionMode::fp8), 0);
}

}  // namespace
