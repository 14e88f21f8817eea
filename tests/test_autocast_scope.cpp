#include <ATen/autocast_mode.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include "amp/autocast_scope.h"
#include "train/classification_loss.h"

using ampbench::amp::AutocastScope;

TEST(AutocastScope, MatmulRunsInTheLowPrecisionDtypeInsideAndFp32After) {
  auto a = torch::randn({8, 8});
  {
    AutocastScope scope(torch::kCPU, torch::kBFloat16);
    EXPECT_EQ(torch::mm(a, a).scalar_type(), torch::kBFloat16);
  }
  {
    AutocastScope scope(torch::kCPU, torch::kHalf);
    EXPECT_EQ(torch::mm(a, a).scalar_type(), torch::kHalf);
    EXPECT_EQ(torch::nn::functional::linear(a, a).scalar_type(), torch::kHalf);
  }
  EXPECT_EQ(torch::mm(a, a).scalar_type(), torch::kFloat32);
}

TEST(AutocastScope, TheTrainingLossIsComputedInFp32FromLowPrecisionLogits) {
  auto inputs = torch::randn({4, 10});
  auto labels = torch::tensor({1, 0, 3, 9}, torch::kInt64);
  AutocastScope scope(torch::kCPU, torch::kBFloat16);
  auto logits = torch::mm(inputs, torch::randn({10, 10}));
  ASSERT_EQ(logits.scalar_type(), torch::kBFloat16);
  auto loss = ampbench::train::classification_loss(logits, labels);
  EXPECT_EQ(loss.scalar_type(), torch::kFloat32);
  // Same value as cross-entropy of the upcast logits outside autocast.
  AutocastScope off(torch::kCPU, std::nullopt);
  EXPECT_TRUE(
      torch::allclose(loss, torch::nn::functional::cross_entropy(logits.to(torch::kFloat32), labels)));
}

TEST(AutocastScope, RestoresThePreviousStateOnExit) {
  ASSERT_FALSE(at::autocast::is_autocast_enabled(torch::kCPU));
  auto dtype_before = at::autocast::get_autocast_dtype(torch::kCPU);
  {
    AutocastScope scope(torch::kCPU, torch::kHalf);
    EXPECT_TRUE(at::autocast::is_autocast_enabled(torch::kCPU));
    EXPECT_EQ(at::autocast::get_autocast_dtype(torch::kCPU), torch::kHalf);
  }
  EXPECT_FALSE(at::autocast::is_autocast_enabled(torch::kCPU));
  EXPECT_EQ(at::autocast::get_autocast_dtype(torch::kCPU), dtype_before);
}

TEST(AutocastScope, NestsLikeTorchAutocast) {
  auto a = torch::randn({8, 8});
  AutocastScope outer(torch::kCPU, torch::kBFloat16);
  {
    // An inner region can switch autocast off (as `torch.autocast(enabled=False)` does) ...
    AutocastScope inner(torch::kCPU, std::nullopt);
    EXPECT_EQ(torch::mm(a, a).scalar_type(), torch::kFloat32);
    {
      AutocastScope innermost(torch::kCPU, torch::kHalf);
      EXPECT_EQ(torch::mm(a, a).scalar_type(), torch::kHalf);
    }
    EXPECT_EQ(torch::mm(a, a).scalar_type(), torch::kFloat32);
  }
  // ... and the outer region's dtype is back when it closes.
  EXPECT_EQ(torch::mm(a, a).scalar_type(), torch::kBFloat16);
}

TEST(AutocastScope, BackToNestingZeroAfterTheOutermostRegion) {
  { AutocastScope scope(torch::kCPU, torch::kBFloat16); }
  // increment_nesting returns the new level: 1 means every region before was closed.
  EXPECT_EQ(at::autocast::increment_nesting(), 1);
  EXPECT_EQ(at::autocast::decrement_nesting(), 0);
}
