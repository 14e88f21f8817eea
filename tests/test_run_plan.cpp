// The plan of a run: every trial in the order it runs, made without training anything.
#include <gtest/gtest.h>

#include "passes/run_plan.h"

namespace {

using ampbench::amp::PrecisionMode;
using ampbench::train::plan_run;
using ampbench::train::PlannedKind;
using ampbench::train::PlannedTrial;

constexpr auto fp32 = PrecisionMode::fp32, tf32 = PrecisionMode::tf32, fp16 = PrecisionMode::fp16,
               bf16 = PrecisionMode::bf16;

}  // namespace

TEST(RunPlan, TimedRoundsInterleaveTheModesThenFidelitySeedsThenProfiledPasses) {
  const auto plan = plan_run({{fp32, tf32, fp16, bf16}, {{tf32, "no tensor cores"}}, 2, 3, 40, false, true});
  const std::vector<PlannedTrial> expected{
      {PlannedKind::timed, fp32, 1, 40},    {PlannedKind::skipped, tf32, 1, 40},
      {PlannedKind::timed, fp16, 1, 40},    {PlannedKind::timed, bf16, 1, 40},
      {PlannedKind::timed, fp32, 2, 40},    {PlannedKind::timed, fp16, 2, 40},
      {PlannedKind::timed, bf16, 2, 40},    {PlannedKind::fidelity, fp32, 2, 41},
      {PlannedKind::fidelity, fp16, 2, 41}, {PlannedKind::fidelity, bf16, 2, 41},
      {PlannedKind::fidelity, fp32, 3, 42}, {PlannedKind::fidelity, fp16, 3, 42},
      {PlannedKind::fidelity, bf16, 3, 42}, {PlannedKind::profiled, fp32, 1, 40},
      {PlannedKind::profiled, fp16, 1, 40}, {PlannedKind::profiled, bf16, 1, 40}};
  EXPECT_EQ(plan, expected);
  EXPECT_EQ(ampbench::train::planned_work(plan), 15);  // the skipped mode runs nothing
}

TEST(RunPlan, OneSeedAndNoProfileAreTheTimedRoundsAlone) {
  const auto plan = plan_run({{bf16, fp32}, {}, 3, 1, 0, false, false});
  ASSERT_EQ(plan.size(), 6u);
  for (size_t i = 0; i < plan.size(); ++i) {
    EXPECT_EQ(plan[i].kind, PlannedKind::timed);
    EXPECT_EQ(plan[i].mode, i % 2 ? fp32 : bf16);  // the config's order, kept in every round
    EXPECT_EQ(plan[i].number, int64_t(i / 2 + 1));
  }
}

TEST(RunPlan, ARunWhoseModesAllSkipPlansOneRecordEachAndNoWork) {
  const auto plan = plan_run({{tf32, fp16}, {{tf32, "cpu"}, {fp16, "cpu"}}, 3, 4, 0, true, true});
  ASSERT_EQ(plan.size(), 2u);
  EXPECT_EQ(plan[0].kind, PlannedKind::skipped);
  EXPECT_EQ(ampbench::train::planned_work(plan), 0);
}

TEST(RunPlan, ThePureBf16ModesAuditsComeAfterTheFidelitySeedsAndBeforeTheProfiledPasses) {
  constexpr auto pure = PrecisionMode::bf16_pure, sr = PrecisionMode::bf16_pure_sr;
  const auto plan = plan_run({{bf16, pure, sr}, {{sr, "no bf16"}}, 1, 2, 7, false, true});
  const std::vector<PlannedTrial> expected{
      {PlannedKind::timed, bf16, 1, 7},    {PlannedKind::timed, pure, 1, 7},
      {PlannedKind::skipped, sr, 1, 7},    {PlannedKind::fidelity, bf16, 2, 8},
      {PlannedKind::fidelity, pure, 2, 8}, {PlannedKind::audited, pure, 1, 7},
      {PlannedKind::profiled, bf16, 1, 7}, {PlannedKind::profiled, pure, 1, 7}};
  EXPECT_EQ(plan, expected);  // a skipped pure mode has no audit; mixed bf16 has none
  EXPECT_EQ(ampbench::train::planned_work(plan), 7);
}

TEST(RunPlan, NumericsPassesFollowTheAuditsForEachRunnableModeWithAnObservedFormat) {
  constexpr auto pure = PrecisionMode::bf16_pure, fp8 = PrecisionMode::fp8;
  const auto plan = plan_run({{fp32, fp16, bf16, pure, fp8}, {{bf16, "no bf16"}}, 1, 1, 3, true, true});
  const std::vector<PlannedTrial> expected{
      {PlannedKind::timed, fp32, 1, 3},    {PlannedKind::timed, fp16, 1, 3},
      {PlannedKind::skipped, bf16, 1, 3},  {PlannedKind::timed, pure, 1, 3},
      {PlannedKind::timed, fp8, 1, 3},     {PlannedKind::audited, pure, 1, 3},
      {PlannedKind::numerics, fp16, 1, 3}, {PlannedKind::numerics, pure, 1, 3},
      {PlannedKind::numerics, fp8, 1, 3},  {PlannedKind::profiled, fp32, 1, 3},
      {PlannedKind::profiled, fp16, 1, 3}, {PlannedKind::profiled, pure, 1, 3},
      {PlannedKind::profiled, fp8, 1, 3}};
  EXPECT_EQ(plan, expected);  // fp32 has no 16-bit format to observe; a skipped mode no pass
}
