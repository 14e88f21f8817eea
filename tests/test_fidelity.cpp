#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>

#include "config/experiment_config.h"
#include "experiment_runs.h"
#include "measure/equivalence.h"
#include "passes/experiment.h"
#include "render/json_report.h"

namespace {

using ampbench::measure::Equivalence;
using ampbench::measure::judge_equivalence;
using ampbench::report::FidelityVerdict;

TEST(Equivalence, StudentTQuantilesMatchTheTables) {
  using ampbench::measure::t_critical;
  EXPECT_NEAR(t_critical(1), 12.7062, 1e-4);
  EXPECT_NEAR(t_critical(4), 2.7764, 1e-4);
  EXPECT_NEAR(t_critical(30), 2.0423, 1e-4);
  EXPECT_NEAR(t_critical(31), 2.0395, 1e-4);
  EXPECT_NEAR(t_critical(60), 2.0003, 1e-4);
  EXPECT_NEAR(t_critical(1000), 1.9623, 1e-4);
  // Any level is exact, not only 95 %: t(0.995, 10) and t(0.95, 5) from the tables.
  EXPECT_NEAR(t_critical(10, 0.99), 3.1693, 1e-4);
  EXPECT_NEAR(t_critical(5, 0.90), 2.0150, 1e-4);
  EXPECT_THROW(t_critical(0), std::invalid_argument);
  EXPECT_THROW(t_critical(4, 1.0), std::invalid_argument);
}

TEST(Equivalence, SmallDifferencesWithATightIntervalAreEquivalent) {
  const auto j = judge_equivalence({0.004, -0.003, 0.002, -0.001, 0.003}, 0.05);
  EXPECT_EQ(j.verdict, Equivalence::equivalent);
  EXPECT_NEAR(j.mean_difference, 0.001, 1e-12);
  ASSERT_TRUE(j.interval);
  // mean +- t(4) s / sqrt(5), s = 0.0029155
  EXPECT_NEAR(j.interval->high - j.mean_difference, 2.7764 * 0.0029155 / std::sqrt(5.0), 1e-5);
  EXPECT_NEAR(j.mean_difference - j.interval->low, j.interval->high - j.mean_difference, 1e-12);
  EXPECT_FALSE(j.samples_needed);
}

TEST(Equivalence, ALargeDifferenceBeyondTheNoiseIsDifferentEitherWay) {
  EXPECT_EQ(judge_equivalence({0.20, 0.22, 0.19, 0.21}, 0.05).verdict, Equivalence::different);
  EXPECT_EQ(judge_equivalence({-0.20, -0.22, -0.19, -0.21}, 0.05).verdict, Equivalence::different);
}

TEST(Equivalence, AnIntervalAcrossTheToleranceIsUndecidedAndSaysHowManySamplesWouldDecide) {
  // Mean 0.01, but two seeds spread so far that the interval reaches past +-0.05.
  const auto j = judge_equivalence({0.04, -0.02}, 0.05);
  EXPECT_EQ(j.verdict, Equivalence::undecided);
  ASSERT_TRUE(j.samples_needed);
  // The advice is the first count whose interval, at this mean and spread, fits inside the tolerance.
  const double s = *j.stddev, margin = 0.05 - 0.01;
  auto half = [&](int64_t n) { return ampbench::measure::t_critical(n - 1) * s / std::sqrt(double(n)); };
  EXPECT_LT(half(*j.samples_needed), margin);
  EXPECT_GE(half(*j.samples_needed - 1), margin);
  EXPECT_GT(*j.samples_needed, 2);
}

TEST(Equivalence, AMeanOnTheToleranceCannotBeDecidedByAnyPracticalCount) {
  const auto j = judge_equivalence({0.049, 0.051}, 0.05);
  EXPECT_EQ(j.verdict, Equivalence::undecided);
  EXPECT_FALSE(j.samples_needed);
}

TEST(Equivalence, OneSampleIsJudgedOnThePointWithoutAnInterval) {
  EXPECT_EQ(judge_equivalence({0.03}, 0.05).verdict, Equivalence::equivalent);
  EXPECT_EQ(judge_equivalence({-0.06}, 0.05).verdict, Equivalence::different);
  EXPECT_FALSE(judge_equivalence({0.03}, 0.05).interval);
}

// A small problem that an MLP learns in a few seconds, well past chance, so that a mode that does not
// learn ends far from fp32 while fp32's seed-to-seed spread stays small.
nlohmann::json learnable(int seed, int fidelity_seeds) {
  return {{"name", "fidelity"},
          {"seed", seed},
          {"model", {{"type", "mlp"}, {"options", {{"width", 64}, {"depth", 1}}}}},
          {"data",
           {{"synthetic",
             {{"train_samples", 512}, {"val_samples", 512}, {"shape", {16}}, {"classes", 4}, {"seed", 0}}}}},
          {"train", {{"epochs", 3}, {"batch_size", 32}, {"optimizer", {{"type", "adamw"}, {"lr", 0.01}}}}},
          {"precision", {{"modes", {"fp32"}}, {"fidelity_seeds", fidelity_seeds}}},
          {"device", "cpu"}};
}

std::vector<double> fp32_losses_by_seed(const ampbench::report::RunReport& report) {
  std::vector<double> losses{report.measured.trials.front().epochs.back().val_loss};
  for (const auto& t : report.measured.fidelity_trials)
    if (t.mode == ampbench::amp::PrecisionMode::fp32) losses.push_back(t.epochs.back().val_loss);
  return losses;
}

TEST(Fidelity, EachSeedTrainsEveryModeFromItsOwnWeightsAndBatchesTheSameForEveryMode) {
  auto doc = learnable(3, 3);
  doc["precision"]["modes"] = {"fp32", "bf16"};
  const auto report = ampbench::testing::run_and_analyse(ampbench::config::parse_experiment_config(doc));
  const auto& f = report.measured.fidelity_trials;
  ASSERT_EQ(f.size(), 4u);  // seeds 4 and 5, each mode
  for (size_t i = 0; i < f.size(); i += 2) {
    EXPECT_EQ(f[i].seed, f[i + 1].seed);
    EXPECT_EQ(f[i].initial_weights_checksum, f[i + 1].initial_weights_checksum);
    EXPECT_EQ(f[i].data_order_checksum, f[i + 1].data_order_checksum);
    EXPECT_NE(f[i].initial_weights_checksum, report.measured.trials[0].initial_weights_checksum);
    EXPECT_NE(f[i].data_order_checksum, report.measured.trials[0].data_order_checksum);
  }
  EXPECT_EQ(f[0].seed, 4u);
  EXPECT_EQ(f[2].seed, 5u);
  EXPECT_NE(f[0].initial_weights_checksum, f[2].initial_weights_checksum);
  const auto& bf16 = report.summary.at(1).fidelity;
  EXPECT_EQ(bf16.seeds, 3);
  EXPECT_EQ(bf16.paired_seeds, 3);
  ASSERT_TRUE(report.summary.at(0).fidelity_noise_floor);
  EXPECT_NEAR(*report.summary.at(0).fidelity_noise_floor,
              *ampbench::measure::stddev(fp32_losses_by_seed(report)), 1e-12);
  const auto json = ampbench::report::to_json(report);
  EXPECT_EQ(json["fidelity_trials"].size(), 4u);
  EXPECT_EQ(json["summary"][1]["fidelity_detail"]["paired_seeds"], 3);
  EXPECT_EQ(json["summary"][1]["fidelity"], std::string(to_string(*bf16.verdict)));
}

TEST(Fidelity, AnAACheckOfFp32AgainstFp32FromOtherSeedsPasses) {
  using ampbench::config::parse_experiment_config;
  const auto a =
      fp32_losses_by_seed(ampbench::testing::run_and_analyse(parse_experiment_config(learnable(0, 6))));
  const auto b =
      fp32_losses_by_seed(ampbench::testing::run_and_analyse(parse_experiment_config(learnable(100, 6))));
  std::vector<double> differences;
  for (size_t k = 0; k < a.size(); ++k) differences.push_back(b[k] - a[k]);
  const auto j = judge_equivalence(differences, 0.05);
  EXPECT_EQ(j.verdict, Equivalence::equivalent) << j.interval->low << " " << j.interval->high;
}

TEST(Fidelity, Fp16WhoseGradientsUnderflowFailsWhileBf16Passes) {
  auto doc = learnable(0, 5);
  doc["precision"]["modes"] = {"fp32", "fp16", "bf16"};
  // A loss scale so small that every fp16 gradient underflows to zero, and never grows: fp16 learns
  // nothing, while its loss stays finite, as a harmful precision bug would leave it.
  doc["precision"]["grad_scaler"] = {{"init_scale", 1e-30}, {"growth_interval", 1000000}};
  const auto report = ampbench::testing::run_and_analyse(ampbench::config::parse_experiment_config(doc));
  ASSERT_EQ(report.summary.size(), 3u);
  const auto& fp16 = report.summary[1].fidelity;
  const auto& bf16 = report.summary[2].fidelity;
  ASSERT_TRUE(fp16.verdict && bf16.verdict);
  EXPECT_EQ(*fp16.verdict, FidelityVerdict::fail) << *fp16.delta_mean;
  EXPECT_GT(fp16.delta_interval->low, 0.05);
  EXPECT_EQ(*bf16.verdict, FidelityVerdict::pass)
      << bf16.delta_interval->low << " " << bf16.delta_interval->high;
  EXPECT_FALSE(report.summary[0].fidelity.verdict);  // fp32 is the reference
}

}  // namespace
