#include <gtest/gtest.h>
#include <torch/torch.h>

#include "config/experiment_config.h"
#include "train/experiment.h"

namespace {

// fp16 on a tiny MLP: 64 samples in batches of 8 make 8 steps an epoch. With a small initial scale no
// gradient overflows, so the GradScaler doubles its scale after every `growth_interval` optimizer steps.
ampbench::report::TrialRecord run_fp16(int64_t accumulation_steps) {
  nlohmann::json doc = {
      {"name", "trainer"},
      {"model", {{"type", "mlp"}, {"options", {{"width", 8}, {"depth", 1}}}}},
      {"data", {{"synthetic", {{"train_samples", 64}, {"val_samples", 16}, {"shape", {8}}, {"classes", 3}}}}},
      {"train",
       {{"epochs", 1},
        {"batch_size", 8},
        {"accumulation_steps", accumulation_steps},
        {"clip_grad_norm", 1.0}}},
      {"precision", {{"modes", {"fp16"}}, {"grad_scaler", {{"init_scale", 1.0}, {"growth_interval", 1}}}}},
      {"device", "cpu"}};
  auto config = ampbench::config::parse_experiment_config(doc);
  return ampbench::train::Experiment(config, torch::kCPU).run().trials.at(0);
}

}  // namespace

TEST(Trainer, TheGradScalerStepsOnlyOnAccumulationBoundaries) {
  // One update per optimizer step: 8 steps without accumulation, 2 with 4 batches per step.
  auto plain = run_fp16(1);
  auto accumulated = run_fp16(4);
  EXPECT_EQ(plain.epochs[0].loss_scale, 256.0);      // 2^8
  EXPECT_EQ(accumulated.epochs[0].loss_scale, 4.0);  // 2^2
  EXPECT_EQ(plain.epochs[0].skipped_steps, 0);
  EXPECT_EQ(accumulated.epochs[0].skipped_steps, 0);
}
