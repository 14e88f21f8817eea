#include <gtest/gtest.h>
#include <torch/torch.h>

#include "config/experiment_config.h"
#include "data/batch_order.h"
#include "experiment_runs.h"
#include "models/registry.h"
#include "passes/experiment.h"
#include "train/model_state.h"

namespace {

nlohmann::json tiny_config(int seed) {
  return {{"name", "fairness"},
          {"seed", seed},
          {"model", {{"type", "mlp"}, {"options", {{"width", 32}, {"depth", 1}}}}},
          {"data",
           {{"synthetic", {{"train_samples", 256}, {"val_samples", 128}, {"shape", {32}}, {"classes", 4}}}}},
          {"train", {{"epochs", 3}, {"batch_size", 16}, {"optimizer", {{"type", "adamw"}, {"lr", 0.01}}}}},
          {"precision", {{"modes", {"fp32", "fp16", "bf16"}}}},
          {"device", "cpu"}};
}

ampbench::train::ExperimentResult run(int seed, int repeats = 1) {
  auto doc = tiny_config(seed);
  doc["repeats"] = repeats;
  auto config = ampbench::config::parse_experiment_config(doc);
  return ampbench::train::Experiment(config, torch::kCPU).run();
}

}  // namespace

TEST(Fairness, EveryModeStartsFromTheSameWeightsAndSeesTheSameBatches) {
  auto report = run(7);
  ASSERT_EQ(report.trials.size(), 3u);
  for (const auto& mode : report.trials) {
    EXPECT_EQ(mode.initial_weights_checksum, report.trials[0].initial_weights_checksum);
    EXPECT_EQ(mode.data_order_checksum, report.trials[0].data_order_checksum);
    EXPECT_TRUE(mode.master_weights_fp32);
  }
  // The recorded checksum is that of the model the seed gives, built independently here.
  auto config = ampbench::config::parse_experiment_config(tiny_config(7));
  torch::manual_seed(7);
  auto model = config.model.spec->build();
  EXPECT_EQ(ampbench::train::checksum(ampbench::train::state_tensors(*model)),
            report.trials[0].initial_weights_checksum);
  // And the batches are the seeded epoch orders.
  EXPECT_EQ(ampbench::train::checksum({ampbench::data::epoch_order(7, 1, 256),
                                       ampbench::data::epoch_order(7, 2, 256),
                                       ampbench::data::epoch_order(7, 3, 256)}),
            report.trials[0].data_order_checksum);
}

TEST(Fairness, TheChecksumsTellDifferentSeedsApart) {
  auto a = run(1), b = run(2);
  EXPECT_NE(a.trials[0].initial_weights_checksum, b.trials[0].initial_weights_checksum);
  EXPECT_NE(a.trials[0].data_order_checksum, b.trials[0].data_order_checksum);
}

TEST(Fairness, EpochOrderIsAPermutationFixedBySeedAndEpoch) {
  auto order = ampbench::data::epoch_order(3, 1, 100);
  EXPECT_TRUE(torch::equal(order, ampbench::data::epoch_order(3, 1, 100)));
  EXPECT_FALSE(torch::equal(order, ampbench::data::epoch_order(3, 2, 100)));
  EXPECT_TRUE(torch::equal(std::get<0>(order.sort()), torch::arange(100)));
}

TEST(Fairness, SyntheticDataIsLearnableAndReproducible) {
  auto report = run(5);
  const auto& fp32 = report.trials[0];
  ASSERT_EQ(fp32.mode, ampbench::amp::PrecisionMode::fp32);
  // Well above chance (1/4) after three epochs: the labels are written into the inputs.
  EXPECT_GT(fp32.epochs.back().val_accuracy, 0.45);
  EXPECT_LT(fp32.epochs.back().val_loss, fp32.epochs.front().val_loss);
  // The same seed reproduces fp32's losses bit for bit.
  auto again = run(5);
  EXPECT_EQ(again.trials[0].epochs.back().val_loss, fp32.epochs.back().val_loss);
}

TEST(Fairness, RepeatsInterleaveTheModesAndEveryTrialStartsFromTheSameState) {
  auto doc = tiny_config(3);
  doc["repeats"] = 2;
  const auto analysed = ampbench::testing::run_and_analyse(ampbench::config::parse_experiment_config(doc));
  const auto& report = analysed.measured;
  ASSERT_EQ(report.trials.size(), 6u);
  std::vector<std::string> order;
  for (const auto& t : report.trials)
    order.push_back(std::string(ampbench::amp::to_string(t.mode)) + "#" + std::to_string(t.trial));
  EXPECT_EQ(order, (std::vector<std::string>{"fp32#1", "fp16#1", "bf16#1", "fp32#2", "fp16#2", "bf16#2"}));
  for (const auto& t : report.trials) {
    EXPECT_EQ(t.initial_weights_checksum, report.trials[0].initial_weights_checksum);
    EXPECT_EQ(t.data_order_checksum, report.trials[0].data_order_checksum);
  }
  // Two trials of fp32 from the same state on the same data train to the same loss, bit for bit.
  EXPECT_EQ(report.trials[0].epochs.back().val_loss, report.trials[3].epochs.back().val_loss);
  const auto& summary = analysed.summary;
  ASSERT_EQ(summary.size(), 3u);
  EXPECT_EQ(summary[0].trials, 2);
  EXPECT_TRUE(summary[1].speedup_interval.has_value());
  // CPU steps are timed one by one: 16 steps an epoch, epochs 2-3 compared, 2 trials.
  ASSERT_TRUE(summary[0].step_seconds.has_value());
  EXPECT_EQ(report.trials[0].epochs[1].step_seconds.size(), 16u);
  EXPECT_LE(summary[0].step_seconds->p50, summary[0].step_seconds->p99);
}
