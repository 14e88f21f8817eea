#include <gtest/gtest.h>
#include <torch/torch.h>

#include "config/experiment_config.h"
#include "data/batch_order.h"
#include "models/registry.h"
#include "train/experiment.h"
#include "train/model_state.h"

namespace {

nlohmann::json tiny_config(int seed) {
  return {{"name", "fairness"},
          {"seed", seed},
          {"model", {{"type", "mlp"}, {"options", {{"width", 32}, {"depth", 1}}}}},
          {"data",
           {{"synthetic", {{"train_samples", 256}, {"val_samples", 128}, {"shape", {32}}, {"classes", 4}}}}},
          {"train", {{"epochs", 3}, {"batch_size", 16}, {"optimizer", {{"type", "adamw"}, {"lr", 0.01}}}}},
          {"device", "cpu"}};
}

ampbench::report::RunReport run(int seed) {
  auto config = ampbench::config::parse_experiment_config(tiny_config(seed));
  return ampbench::train::Experiment(config, torch::kCPU).run();
}

}  // namespace

TEST(Fairness, EveryModeStartsFromTheSameWeightsAndSeesTheSameBatches) {
  auto report = run(7);
  ASSERT_EQ(report.modes.size(), 3u);
  for (const auto& mode : report.modes) {
    EXPECT_EQ(mode.initial_weights_checksum, report.modes[0].initial_weights_checksum);
    EXPECT_EQ(mode.data_order_checksum, report.modes[0].data_order_checksum);
    EXPECT_TRUE(mode.master_weights_fp32);
  }
  // The recorded checksum is that of the model the seed gives, built independently here.
  auto config = ampbench::config::parse_experiment_config(tiny_config(7));
  torch::manual_seed(7);
  auto model = ampbench::models::find_model("mlp")->build(config.model.options, {{32}, 4});
  EXPECT_EQ(ampbench::train::checksum(ampbench::train::state_tensors(*model)),
            report.modes[0].initial_weights_checksum);
  // And the batches are the seeded epoch orders.
  EXPECT_EQ(ampbench::train::checksum({ampbench::data::epoch_order(7, 1, 256),
                                       ampbench::data::epoch_order(7, 2, 256),
                                       ampbench::data::epoch_order(7, 3, 256)}),
            report.modes[0].data_order_checksum);
}

TEST(Fairness, TheChecksumsTellDifferentSeedsApart) {
  auto a = run(1), b = run(2);
  EXPECT_NE(a.modes[0].initial_weights_checksum, b.modes[0].initial_weights_checksum);
  EXPECT_NE(a.modes[0].data_order_checksum, b.modes[0].data_order_checksum);
}

TEST(Fairness, EpochOrderIsAPermutationFixedBySeedAndEpoch) {
  auto order = ampbench::data::epoch_order(3, 1, 100);
  EXPECT_TRUE(torch::equal(order, ampbench::data::epoch_order(3, 1, 100)));
  EXPECT_FALSE(torch::equal(order, ampbench::data::epoch_order(3, 2, 100)));
  EXPECT_TRUE(torch::equal(std::get<0>(order.sort()), torch::arange(100)));
}

TEST(Fairness, SyntheticDataIsLearnableAndReproducible) {
  auto report = run(5);
  const auto& fp32 = report.modes[0];
  ASSERT_EQ(fp32.mode, ampbench::amp::PrecisionMode::fp32);
  // Well above chance (1/4) after three epochs: the labels are written into the inputs.
  EXPECT_GT(fp32.epochs.back().val_accuracy, 0.45);
  EXPECT_LT(fp32.epochs.back().val_loss, fp32.epochs.front().val_loss);
  // The same seed reproduces fp32's losses bit for bit.
  auto again = run(5);
  EXPECT_EQ(again.modes[0].epochs.back().val_loss, fp32.epochs.back().val_loss);
}
