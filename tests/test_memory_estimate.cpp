#include <gtest/gtest.h>

#include "config/experiment_config.h"
#include "config/memory_estimate.h"

using namespace ampbench::config;
using nlohmann::json;

namespace {

// An MLP of 4 features, 16 wide, 3 classes: (4 + 1) * 16 + (16 + 1) * 3 = 131 parameters, no buffers.
json mlp_config() {
  return json::parse(R"({
    "name": "t",
    "model": {"type": "mlp", "options": {"width": 16, "depth": 1}},
    "data": {"synthetic": {"train_samples": 64, "val_samples": 16, "shape": [4], "classes": 3}},
    "train": {"epochs": 1, "batch_size": 8, "optimizer": {"type": "sgd", "lr": 0.1}}
  })");
}

MemoryEstimate estimate_of(const json& config) { return estimate_memory(parse_experiment_config(config)); }

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

}  // namespace

// fp32 weights, gradients and the optimizer's state per parameter; one initial state; the data as made.
TEST(MemoryEstimate, CountsWeightsGradientsOptimizerStateInitialStateAndData) {
  const auto sgd = estimate_of(mlp_config());
  EXPECT_EQ(sgd.parameters, 131);
  EXPECT_EQ(sgd.training_bytes, 131 * 4 * 3);  // momentum: one slot
  EXPECT_EQ(sgd.initial_state_bytes, 131 * 4);
  EXPECT_EQ(sgd.data_bytes, (64 + 16) * (4 * 4 + 8));  // fp32 features and an int64 label

  auto config = mlp_config();
  config["train"]["optimizer"] = {{"type", "sgd"}, {"lr", 0.1}, {"momentum", 0.0}};
  EXPECT_EQ(estimate_of(config).training_bytes, 131 * 4 * 2);
  config["train"]["optimizer"] = {{"type", "adamw"}};
  EXPECT_EQ(estimate_of(config).training_bytes, 131 * 4 * 4);  // two moments
  config["precision"] = {{"fidelity_seeds", 3}};
  EXPECT_EQ(estimate_of(config).initial_state_bytes, 2 * 131 * 4);  // another seed's beside the run's
}

TEST(MemoryEstimate, ThePureBf16ModesHoldTheirStateInBf16AndKahanACompensationMore) {
  auto config = mlp_config();
  config["train"]["optimizer"] = {{"type", "adamw"}};
  config["precision"] = {{"modes", {"bf16-pure", "bf16-pure-sr", "bf16-pure-kahan"}}};
  const auto pure = estimate_of(config);
  using ampbench::amp::PrecisionMode;
  EXPECT_EQ(pure.static_bytes.at(PrecisionMode::bf16_pure), 131 * 2 * 4);
  EXPECT_EQ(pure.static_bytes.at(PrecisionMode::bf16_pure_sr), 131 * 2 * 4);
  EXPECT_EQ(pure.static_bytes.at(PrecisionMode::bf16_pure_kahan), 131 * 2 * 5);
  EXPECT_EQ(pure.training_bytes, 131 * 2 * 5);  // the largest mode's
  config["precision"]["modes"].push_back("bf16");
  EXPECT_EQ(estimate_of(config).training_bytes, 131 * 4 * 4);  // mixed bf16 keeps fp32 master weights
  EXPECT_EQ(static_memory_line(estimate_of(config)),
            "fp32 2.0 KiB, bf16 2.0 KiB (1.00x fp32), bf16-pure 1.0 KiB (0.50x fp32), bf16-pure-sr 1.0 KiB "
            "(0.50x fp32), bf16-pure-kahan 1.3 KiB (0.62x fp32)");
}

TEST(MemoryEstimate, BuffersAreHeldButHaveNoGradientOrOptimizerState) {
  auto config = mlp_config();
  config["model"] = {{"type", "resnet18"}, {"options", {{"stem", "cifar"}}}};
  config["data"]["synthetic"]["shape"] = {3, 8, 8};
  const auto parsed = parse_experiment_config(config);
  const auto size = parsed.model.spec->size();
  ASSERT_GT(size.buffers, 0);
  const auto estimate = estimate_memory(parsed);
  EXPECT_EQ(estimate.training_bytes, (3 * size.parameters + size.buffers) * 4);
  EXPECT_EQ(estimate.initial_state_bytes, (size.parameters + size.buffers) * 4);
}

TEST(MemoryShortfall, OnTheCpuEverythingCountsAgainstHostMemory) {
  const MemoryEstimate estimate{1e9, {}, 12e9, 4e9, 2e9};
  EXPECT_EQ(memory_shortfall(estimate, {18e9, {}, {}}), std::nullopt);
  const auto line = memory_shortfall(estimate, {17e9, {}, {}});
  ASSERT_TRUE(line);
  EXPECT_EQ(
      *line,
      "training needs at least 16.8 GiB of host memory (1000000000 parameters: weights, gradients and "
      "optimizer state 11.2 GiB, the initial state 3.7 GiB, the data 1.9 GiB), and 15.8 GiB is available");
  // Unknown availability (not Linux) refuses nothing.
  EXPECT_EQ(memory_shortfall(estimate, {{}, {}, {}}), std::nullopt);
}

TEST(MemoryShortfall, WithAGpuTheTrainingStateCountsAgainstItAndTheRestAgainstTheHost) {
  const MemoryEstimate estimate{1e9, {}, 12e9, 4e9, 2e9};
  // The host holds only the initial state and the data; the GPU the rest.
  EXPECT_EQ(memory_shortfall(estimate, {6e9, "cuda:1", 12e9}), std::nullopt);
  const auto gpu = memory_shortfall(estimate, {6e9, "cuda:1", 8 * kGiB});
  ASSERT_TRUE(gpu);
  EXPECT_EQ(*gpu,
            "training needs at least 11.2 GiB of memory on cuda:1 (weights, gradients and optimizer state of "
            "1000000000 parameters), and the GPU has 8.0 GiB");
  const auto host = memory_shortfall(estimate, {5e9, "cuda:1", 80 * kGiB});
  ASSERT_TRUE(host);
  EXPECT_EQ(
      *host,
      "training needs at least 5.6 GiB of host memory (1000000000 parameters: the initial state 3.7 GiB, "
      "the data 1.9 GiB), and 4.7 GiB is available");
}
