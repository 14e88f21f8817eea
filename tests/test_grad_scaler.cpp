#include <cmath>
#include <limits>

#include <gtest/gtest.h>
#include <torch/torch.h>

#include "amp/grad_scaler.h"
#include "optim/optimizer.h"

using ampbench::amp::GradScaler;
using ampbench::amp::GradScalerOptions;

namespace {

// One parameter with a chosen gradient and a plain SGD optimizer (lr 1): a step moves p by -grad.
struct Fixture {
  torch::Tensor param = torch::ones({4}, torch::requires_grad());
  ampbench::optim::FusedSgd optimizer{{param},
                                      ampbench::optim::SgdOptions().lr(1.0).momentum(0.0).weight_decay(0.0)};

  void set_grad(std::vector<float> values) { param.mutable_grad() = torch::tensor(values); }
};

GradScalerOptions options(double init, int64_t interval) {
  GradScalerOptions o;
  o.init_scale = init;
  o.growth_interval = interval;
  return o;
}

}  // namespace

TEST(GradScaler, DefaultsAreTorchAmpGradScalers) {
  GradScalerOptions o;
  EXPECT_EQ(o.init_scale, 65536.0);
  EXPECT_EQ(o.growth_factor, 2.0);
  EXPECT_EQ(o.backoff_factor, 0.5);
  EXPECT_EQ(o.growth_interval, 2000);
  GradScaler scaler(o, torch::kCPU);
  EXPECT_EQ(scaler.scale_value(), 65536.0);
}

TEST(GradScaler, ScaleMultipliesTheLoss) {
  GradScaler scaler(options(1024, 10), torch::kCPU);
  EXPECT_FLOAT_EQ(scaler.scale(torch::tensor(0.75f)).item<float>(), 768.0f);
}

TEST(GradScaler, UnscaledGradsEqualGradsDividedByTheScale) {
  Fixture f;
  GradScaler scaler(options(8, 10), torch::kCPU);
  f.set_grad({8, -16, 4, 0.5});
  scaler.unscale_(f.optimizer);
  EXPECT_TRUE(torch::equal(f.param.grad(), torch::tensor({1.0f, -2.0f, 0.5f, 0.0625f})));
  EXPECT_EQ(scaler.found_inf().item<float>(), 0.0f);
}

TEST(GradScaler, UnscaleDividesByTheScaleOfItsOwnIterationAfterTheScaleMoved) {
  // A scale that no power of two matches, then its back-off: each unscale_ must use the current scale.
  Fixture f;
  GradScaler scaler(options(3, 10), torch::kCPU);
  f.set_grad({3, 6, std::numeric_limits<float>::infinity(), 1.5});
  scaler.unscale_(f.optimizer);
  scaler.update();  // backs off to 1.5
  f.set_grad({3, 6, -1.5, 0.75});
  scaler.unscale_(f.optimizer);
  const float inv = static_cast<float>(1.0 / 1.5);  // in double, then rounded, as torch.amp.GradScaler does
  EXPECT_TRUE(torch::equal(f.param.grad(), torch::tensor({3 * inv, 6 * inv, -1.5f * inv, 0.75f * inv})))
      << f.param.grad();
  EXPECT_EQ(scaler.found_inf().item<float>(), 0.0f);
}

TEST(GradScaler, InfGradientSkipsTheStepAndBacksTheScaleOff) {
  Fixture f;
  GradScaler scaler(options(1024, 10), torch::kCPU);
  f.set_grad({1, std::numeric_limits<float>::infinity(), 1, 1});
  scaler.step(f.optimizer);
  scaler.update();
  EXPECT_TRUE(torch::equal(f.param.detach(), torch::ones({4})));  // untouched
  EXPECT_EQ(scaler.scale_value(), 512.0);
}

TEST(GradScaler, ScaleAndFoundInfSideBySideFollowBothThroughASkippedStep) {
  // The loss-scale trace copies the pair: it must be the scale and found_inf themselves, not a snapshot.
  Fixture f;
  GradScaler scaler(options(1024, 10), torch::kCPU);
  EXPECT_TRUE(torch::equal(scaler.scale_and_found_inf(), torch::tensor({1024.0f, 0.0f})));
  f.set_grad({1, std::numeric_limits<float>::infinity(), 1, 1});
  scaler.step(f.optimizer);
  scaler.update();
  EXPECT_TRUE(torch::equal(scaler.scale_and_found_inf(), torch::tensor({512.0f, 1.0f})))
      << scaler.scale_and_found_inf();
  EXPECT_TRUE(torch::equal(scaler.scale_and_found_inf()[0], scaler.scale_tensor()));
  EXPECT_TRUE(torch::equal(scaler.scale_and_found_inf()[1], scaler.found_inf()));
}

TEST(GradScaler, NanGradientSkipsTheStepAndBacksTheScaleOff) {
  Fixture f;
  GradScaler scaler(options(1024, 10), torch::kCPU);
  f.set_grad({1, 1, std::nanf(""), 1});
  scaler.step(f.optimizer);
  scaler.update();
  EXPECT_TRUE(torch::equal(f.param.detach(), torch::ones({4})));
  EXPECT_EQ(scaler.scale_value(), 512.0);
  EXPECT_EQ(scaler.growth_tracker_value(), 0);
}

TEST(GradScaler, FiniteGradientStepsWithTheUnscaledGradient) {
  Fixture f;
  GradScaler scaler(options(4, 10), torch::kCPU);
  f.set_grad({4, 8, -4, 0});  // the scaled gradient of {1, 2, -1, 0}
  scaler.step(f.optimizer);
  scaler.update();
  EXPECT_TRUE(torch::allclose(f.param.detach(), torch::tensor({0.0f, -1.0f, 2.0f, 1.0f})));
  EXPECT_EQ(scaler.scale_value(), 4.0);
  EXPECT_EQ(scaler.growth_tracker_value(), 1);
}

TEST(GradScaler, GrowsAfterGrowthIntervalCleanStepsAndAnInfResetsTheCount) {
  Fixture f;
  GradScalerOptions o = options(16, 3);
  GradScaler scaler(o, torch::kCPU);
  auto iterate = [&](float grad) {
    f.set_grad({grad, grad, grad, grad});
    scaler.step(f.optimizer);
    scaler.update();
    return scaler.scale_value();
  };
  const float inf = std::numeric_limits<float>::infinity();
  // Hand-computed trajectory: two clean steps keep 16; the third grows it to 32; an inf halves it
  // and resets the count, so growth needs three more clean steps.
  EXPECT_EQ(iterate(1), 16.0);
  EXPECT_EQ(iterate(1), 16.0);
  EXPECT_EQ(iterate(1), 32.0);
  EXPECT_EQ(iterate(1), 32.0);
  EXPECT_EQ(iterate(inf), 16.0);
  EXPECT_EQ(iterate(1), 16.0);
  EXPECT_EQ(iterate(1), 16.0);
  EXPECT_EQ(iterate(1), 32.0);
}

TEST(GradScaler, UnscaleTwiceIsAnError) {
  Fixture f;
  GradScaler scaler(options(2, 10), torch::kCPU);
  f.set_grad({2, 2, 2, 2});
  scaler.unscale_(f.optimizer);
  EXPECT_THROW(scaler.unscale_(f.optimizer), std::logic_error);
  // step() after an explicit unscale_ does not unscale again.
  scaler.step(f.optimizer);
  EXPECT_TRUE(torch::equal(f.param.detach(), torch::zeros({4})));
  EXPECT_THROW(scaler.step(f.optimizer), std::logic_error);
  scaler.update();
  // A new iteration may unscale again.
  f.set_grad({2, 2, 2, 2});
  EXPECT_NO_THROW(scaler.unscale_(f.optimizer));
}

TEST(GradScaler, UpdateWithoutAnInfCheckIsAnError) {
  GradScaler scaler(options(2, 10), torch::kCPU);
  EXPECT_THROW(scaler.update(), std::logic_error);
}
