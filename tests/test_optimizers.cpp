#include <gtest/gtest.h>
#include <torch/torch.h>

#include "measure/device.h"
#include "optim/grad_clipping.h"
#include "optim/optimizer.h"

namespace {

// Two copies of the same parameters, so a fused and a reference optimizer can run side by side.
std::vector<torch::Tensor> make_params(int seed) {
  torch::manual_seed(seed);
  return {torch::randn({16, 8}, torch::requires_grad()), torch::randn({8}, torch::requires_grad())};
}

std::vector<torch::Tensor> copy_of(const std::vector<torch::Tensor>& params) {
  std::vector<torch::Tensor> out;
  for (const auto& p : params) out.push_back(p.detach().clone().requires_grad_(true));
  return out;
}

void set_same_grads(std::vector<torch::Tensor>& a, std::vector<torch::Tensor>& b, int step) {
  torch::manual_seed(100 + step);
  for (size_t i = 0; i < a.size(); ++i) {
    auto g = torch::randn_like(a[i]);
    a[i].mutable_grad() = g.clone();
    b[i].mutable_grad() = g.to(b[i].options(), /*non_blocking=*/false, /*copy=*/true);  // b may be on a GPU
  }
}

// The settings of every fused-against-reference test, as each optimizer spells them.
const auto kSgd = ampbench::optim::SgdOptions().lr(0.05).momentum(0.9).weight_decay(1e-3);
const auto kAdamW =
    ampbench::optim::AdamWOptions().lr(1e-2).beta1(0.9).beta2(0.999).eps(1e-8).weight_decay(0.01);

torch::optim::SGDOptions reference_options(const ampbench::optim::SgdOptions& o) {
  return torch::optim::SGDOptions(o.lr()).momentum(o.momentum()).weight_decay(o.weight_decay());
}

torch::optim::AdamWOptions reference_options(const ampbench::optim::AdamWOptions& o) {
  return torch::optim::AdamWOptions(o.lr())
      .betas({o.beta1(), o.beta2()})
      .eps(o.eps())
      .weight_decay(o.weight_decay());
}

void expect_close(const std::vector<torch::Tensor>& a, const std::vector<torch::Tensor>& b) {
  for (size_t i = 0; i < a.size(); ++i)
    EXPECT_TRUE(torch::allclose(a[i], b[i], 1e-5, 1e-6)) << "tensor " << i;
}

}  // namespace

TEST(Optimizers, FusedSgdMatchesLibTorchsPerParameterSgd) {
  auto fused_params = make_params(1);
  auto reference_params = copy_of(fused_params);
  ampbench::optim::FusedSgd fused(fused_params, kSgd);
  torch::optim::SGD reference(reference_params, reference_options(kSgd));
  for (int step = 0; step < 5; ++step) {
    set_same_grads(fused_params, reference_params, step);
    fused.step();
    reference.step();
  }
  expect_close(fused_params, reference_params);
}

TEST(Optimizers, FusedAdamWMatchesLibTorchsPerParameterAdamW) {
  auto fused_params = make_params(2);
  auto reference_params = copy_of(fused_params);
  ampbench::optim::FusedAdamW fused(fused_params, kAdamW);
  torch::optim::AdamW reference(reference_params, reference_options(kAdamW));
  for (int step = 0; step < 5; ++step) {
    set_same_grads(fused_params, reference_params, step);
    fused.step();
    reference.step();
  }
  expect_close(fused_params, reference_params);
}

TEST(Optimizers, FoundInfSkipsTheUpdateAndTheAdamStepCount) {
  auto params = make_params(3);
  auto reference_params = copy_of(params);
  ampbench::optim::FusedAdamW fused(params, kAdamW);
  ampbench::optim::FusedAdamW reference(reference_params, kAdamW);
  set_same_grads(params, reference_params, 0);
  auto before = copy_of(params);
  fused.step(torch::ones({}));  // skipped: nothing may change, not even the bias correction's step count
  expect_close(params, before);
  // After the skipped step, both take the same real step: equal only if the step count was restored.
  set_same_grads(params, reference_params, 1);
  fused.step(torch::zeros({}));
  reference.step(torch::zeros({}));
  expect_close(params, reference_params);
}

namespace {

// On a GPU, the fused kernels against LibTorch's per-parameter optimizer on the CPU, with a step that
// found_inf (a tensor on the GPU) skips: the reference simply does not step there.
template <typename Fused, typename Reference>
void expect_gpu_matches_cpu_reference(std::vector<torch::Tensor>& gpu_params,
                                      std::vector<torch::Tensor>& cpu_params, Fused& fused,
                                      Reference& reference) {
  const auto device = gpu_params.at(0).device();
  for (int step = 0; step < 6; ++step) {
    set_same_grads(cpu_params, gpu_params, step);
    const bool skipped = step == 2;
    fused.step(torch::full({}, skipped ? 1.0f : 0.0f, torch::TensorOptions().device(device)));
    if (!skipped) reference.step();
  }
  for (size_t i = 0; i < cpu_params.size(); ++i)
    EXPECT_TRUE(torch::allclose(gpu_params[i].cpu(), cpu_params[i], 1e-5, 1e-6)) << "tensor " << i;
}

std::vector<torch::Tensor> on_gpu(const std::vector<torch::Tensor>& params) {
  const auto device = ampbench::measure::resolve_device("cuda");
  std::vector<torch::Tensor> out;
  for (const auto& p : params) out.push_back(p.detach().to(device).requires_grad_(true));
  return out;
}

}  // namespace

TEST(Optimizers, FusedSgdOnAGpuMatchesThePerParameterSgdAndSkipsOnFoundInf) {
  if (!torch::cuda::is_available()) GTEST_SKIP() << "no CUDA GPU";
  auto cpu_params = make_params(5);
  auto gpu_params = on_gpu(cpu_params);
  ampbench::optim::FusedSgd fused(gpu_params, kSgd);
  torch::optim::SGD reference(cpu_params, reference_options(kSgd));
  expect_gpu_matches_cpu_reference(gpu_params, cpu_params, fused, reference);
}

TEST(Optimizers, FusedAdamWOnAGpuMatchesThePerParameterAdamWAndSkipsOnFoundInf) {
  if (!torch::cuda::is_available()) GTEST_SKIP() << "no CUDA GPU";
  auto cpu_params = make_params(6);
  auto gpu_params = on_gpu(cpu_params);
  ampbench::optim::FusedAdamW fused(gpu_params, kAdamW);
  torch::optim::AdamW reference(cpu_params, reference_options(kAdamW));
  expect_gpu_matches_cpu_reference(gpu_params, cpu_params, fused, reference);
}

TEST(Optimizers, ClipGradNormMatchesLibTorchAndReturnsTheNormBeforeClipping) {
  auto a = make_params(4);
  auto b = copy_of(a);
  set_same_grads(a, b, 0);
  double expected_norm = torch::nn::utils::clip_grad_norm_(b, 0.5);
  std::vector<torch::Tensor> grads{a[0].grad(), a[1].grad()};
  auto norm = ampbench::optim::clip_grad_norm_(grads, 0.5);
  EXPECT_NEAR(norm.item<double>(), expected_norm, 1e-4);
  EXPECT_TRUE(torch::allclose(a[0].grad(), b[0].grad(), 1e-5, 1e-7));
  EXPECT_TRUE(torch::allclose(a[1].grad(), b[1].grad(), 1e-5, 1e-7));
}

namespace {

// Gives a gradient only to the parameters whose index is in `which`; the others have none, as a frozen
// or unused parameter in a training step.
void set_grads_of(std::vector<torch::Tensor>& a, std::vector<torch::Tensor>& b,
                  const std::vector<size_t>& which, int step) {
  torch::manual_seed(200 + step);
  for (size_t i = 0; i < a.size(); ++i) {
    a[i].mutable_grad().reset();
    b[i].mutable_grad().reset();
  }
  for (size_t i : which) {
    auto g = torch::randn_like(a[i]);
    a[i].mutable_grad() = g.clone();
    b[i].mutable_grad() = g.clone();
  }
}

// Which parameters have a gradient changes from step to step: only the second, then only the first (the
// same number, other parameters), then both, then the first alone. Each parameter must be stepped with
// its own state, and the others left alone, as LibTorch's per-parameter optimizers do.
const std::vector<std::vector<size_t>> kChangingGradSets = {{1}, {0}, {0, 1}, {0}};

}  // namespace

// Steps both optimizers through kChangingGradSets, checking after each step that they agree.
template <typename Fused, typename Reference>
void expect_both_follow_the_changing_sets(Fused& fused, Reference& reference,
                                          std::vector<torch::Tensor>& fused_params,
                                          std::vector<torch::Tensor>& reference_params) {
  for (size_t step = 0; step < kChangingGradSets.size(); ++step) {
    set_grads_of(fused_params, reference_params, kChangingGradSets[step], static_cast<int>(step));
    fused.step();
    reference.step();
    expect_close(fused_params, reference_params);
  }
}

TEST(Optimizers, FusedAdamWFollowsTheParametersThatHaveGradientsAsTheyChange) {
  auto fused_params = make_params(5);
  auto reference_params = copy_of(fused_params);
  ampbench::optim::FusedAdamW fused(fused_params, kAdamW);
  torch::optim::AdamW reference(reference_params, reference_options(kAdamW));
  expect_both_follow_the_changing_sets(fused, reference, fused_params, reference_params);
}

TEST(Optimizers, FusedSgdFollowsTheParametersThatHaveGradientsAsTheyChange) {
  auto fused_params = make_params(6);
  auto reference_params = copy_of(fused_params);
  ampbench::optim::FusedSgd fused(fused_params, kSgd);
  torch::optim::SGD reference(reference_params, reference_options(kSgd));
  expect_both_follow_the_changing_sets(fused, reference, fused_params, reference_params);
}

TEST(Optimizers, ZeroGradLeavesNoReferenceToTheGradients) {
  // A reference kept between steps would hold a second set of gradients at the next backward's peak.
  auto params = make_params(7);
  auto reference_params = copy_of(params);
  ampbench::optim::FusedSgd sgd(params,
                                ampbench::optim::SgdOptions().lr(0.05).momentum(0.9).weight_decay(0.0));
  set_same_grads(params, reference_params, 0);
  sgd.step();
  auto gradient = params[0].grad();
  sgd.zero_grad();
  EXPECT_FALSE(params[0].grad().defined());
  EXPECT_EQ(gradient.use_count(), 1);  // only this test's handle is left
}

namespace {

// One step of `Fused` on bf16 weights against the same optimizer on fp32 copies of them, at sizes on both
// sides of every SIMD width: each bf16 weight must land within an ulp of the fp32 result, which moved every
// element by far more than an ulp (a kernel that skips any block of elements fails).
template <typename Fused, typename Options>
void expect_bf16_step_follows_fp32(const Options& options) {
  for (const int64_t size : {1, 7, 8, 9, 16, 31, 32, 33, 64, 65, 300}) {
    torch::manual_seed(size);
    auto bf16 = (0.1 * torch::randn({size})).to(torch::kBFloat16).requires_grad_(true);
    auto fp32 = bf16.detach().to(torch::kFloat32).requires_grad_(true);
    const auto gradient = torch::randn({size}).to(torch::kBFloat16);
    bf16.mutable_grad() = gradient.clone();
    fp32.mutable_grad() = gradient.to(torch::kFloat32);
    Fused on_bf16({bf16}, options);
    Fused on_fp32({fp32}, options);
    on_bf16.step();
    on_fp32.step();
    const auto expected = fp32.detach();
    const auto ulp = torch::pow(2.0, torch::floor(torch::log2(expected.abs())) - 7);
    const auto off = (bf16.detach().to(torch::kFloat32) - expected).abs();
    EXPECT_TRUE(off.le(ulp).all().item<bool>())
        << size << " elements: off by up to " << off.max().item<double>();
  }
}

}  // namespace

TEST(Optimizers, FusedSgdMovesEveryBf16WeightAsItsFp32StepDoes) {
  expect_bf16_step_follows_fp32<ampbench::optim::FusedSgd>(kSgd);
}

TEST(Optimizers, FusedAdamWMovesEveryBf16WeightAsItsFp32StepDoes) {
  expect_bf16_step_follows_fp32<ampbench::optim::FusedAdamW>(kAdamW);
}

namespace {

// Whether LibTorch's fused SGD kernel, called directly, moves every element of zero bf16 tensors by a
// gradient of ones, at sizes on both sides of every SIMD width.
bool fused_sgd_kernel_steps_every_bf16_weight() {
  for (const int64_t size : {1, 7, 8, 16, 31, 32, 33, 64, 65, 300}) {
    auto weights = torch::zeros({size}, torch::kBFloat16);
    at::_fused_sgd_({weights}, {torch::ones_like(weights)}, {}, 0.0, 0.0, 0.1, 0.0, false, false, false,
                    std::nullopt, std::nullopt);
    if (!weights.ne(0).all().item<bool>()) return false;
  }
  return true;
}

}  // namespace

TEST(Optimizers, TheFusedKernelCheckSaysWhatTheKernelDoesToBf16Weights) {
  auto bf16 = torch::zeros({8}, torch::kBFloat16).requires_grad_(true);
  ampbench::optim::FusedSgd sgd({bf16}, kSgd);
  sgd.check_fused_kernel_on_bf16();
  EXPECT_EQ(sgd.fused_kernel_updates_bf16(), fused_sgd_kernel_steps_every_bf16_weight());
  EXPECT_EQ(sgd.kernel_name(), "fused SGD");
}

TEST(Optimizers, AnOptimizerThatStepsBeforeAnyCheckChecksOnItsFirstStep) {
  auto bf16 = torch::zeros({300}, torch::kBFloat16).requires_grad_(true);
  ampbench::optim::FusedSgd sgd({bf16}, ampbench::optim::SgdOptions().lr(0.1).momentum(0.0));
  bf16.mutable_grad() = torch::ones_like(bf16);
  sgd.step();
  // Whatever the kernel does, the step moved every weight: through the kernel or through fp32 copies.
  EXPECT_TRUE(bf16.ne(0).all().item<bool>());
  EXPECT_EQ(sgd.fused_kernel_updates_bf16(), fused_sgd_kernel_steps_every_bf16_weight());
}

TEST(Optimizers, Fp32WeightsNeedNoCheck) {
  auto params = make_params(8);
  ampbench::optim::FusedSgd sgd(params, kSgd);
  sgd.check_fused_kernel_on_bf16();
  EXPECT_TRUE(sgd.fused_kernel_updates_bf16());
}
