// Which trials a divergence replay diagnoses, and which steps it traces (train/divergence.h).
#include <gtest/gtest.h>

#include "train/divergence.h"
#include "train/trial_record.h"

namespace ampbench::train {
namespace {

TrialRecord fp16_skipping(std::vector<int64_t> skipped) {
  TrialRecord record;
  record.mode = amp::PrecisionMode::fp16;
  record.loss_scale_trace.emplace();
  record.loss_scale_trace->skipped_steps = std::move(skipped);
  return record;
}

TEST(DivergenceTarget, ACleanTrialAndAFewSkippedStepsAreNotDiagnosed) {
  EXPECT_FALSE(divergence_target(TrialRecord(), 4, 1));
  EXPECT_FALSE(
      divergence_target(fp16_skipping({1, 2, 3, 9}), 4, 1));  // 3 in a row: the scale finding its level
}

TEST(DivergenceTarget, ANonFiniteLossIsDiagnosedAtItsStep) {
  TrialRecord record;
  record.status = TrialStatus::diverged;
  record.stopped_at_step = 6;
  const auto target = divergence_target(record, 4, 1);
  ASSERT_TRUE(target);
  EXPECT_EQ(target->loss_step, 6);
  EXPECT_FALSE(target->validation_epoch);
  record.diverged_in_validation = true;
  record.stopped_at_step = 8;
  EXPECT_EQ(divergence_target(record, 4, 1)->validation_epoch, 2);
}

TEST(DivergenceTarget, ALongRunOfSkippedStepsTracesTheFirstSkipAndTheRunsStart) {
  const auto target = divergence_target(fp16_skipping({1, 5, 6, 7, 8, 9}), 4, 1);
  ASSERT_TRUE(target);
  EXPECT_EQ(target->skipped_steps, (std::vector<int64_t>{1, 5}));
  EXPECT_EQ(target->trigger, "5 optimizer steps skipped in a row from step 5");
  // With accumulation over 2 steps, optimizer steps 2 apart are consecutive.
  EXPECT_EQ(divergence_target(fp16_skipping({2, 4, 6, 8}), 4, 2)->skipped_steps, (std::vector<int64_t>{2}));
}

}  // namespace
}  // namespace ampbench::train
