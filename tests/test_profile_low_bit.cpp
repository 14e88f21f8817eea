// The profile of the block-scaled formats: an emulated product is the format's work and its operands'
// preparation (NVFP4's Hadamard transform) no matrix work of the model's, on planted events and on a model
// that every block-scaled mode of the table runs wholly in its format.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include "amp/record_scopes.h"
#include "config/experiment_config.h"
#include "mode_families.h"
#include "passes/experiment.h"
#include "profile/attributed_op.h"

namespace {

using ampbench::profile::AttributedOp;
using ampbench::profile::CapturedEvents;
using ampbench::profile::OpEvent;

OpEvent event(std::string name, uint64_t thread, int64_t start, int64_t end, double flops = 0) {
  return {std::move(name), thread, start, end, {"float", "float"}, {{32, 16}, {16, 8}}, flops, 0};
}

const AttributedOp& at_time(const std::vector<AttributedOp>& ops, int64_t self_ns) {
  for (const auto& o : ops) {
    if (o.name == "aten::mm" && o.self_ns == self_ns) return o;
  }
  throw std::runtime_error("no mm with self time " + std::to_string(self_ns));
}

TEST(ProfileLowBit, AnEmulatedProductIsTheFormatsWorkAndItsOperandsPreparationNoneOfTheModels) {
  CapturedEvents e;
  e.steps = {{0, 1000}};
  const double flops = 2.0 * 32 * 16 * 8;
  e.ops = {event(ampbench::amp::kEmulatedProductMarker, 1, 0, 100),
           event("aten::mm", 1, 10, 20, flops),
           event(ampbench::amp::kOperandsMarker, 1, 100, 200),
           event(ampbench::amp::kOperandsMarker, 1, 110, 150),  // nested, as the scopes nest
           event("aten::mm", 1, 160, 190, flops),
           event("aten::mm", 2, 10, 50, flops),  // another thread, at the same time: neither
           event("aten::mm", 1, 300, 360, flops)};
  const auto ops = ampbench::profile::attribute_ops(e);
  ASSERT_EQ(ops.size(), 4u);  // the markers are no ops
  const auto& product = at_time(ops, 10);
  EXPECT_TRUE(product.float8 && product.low_precision);
  EXPECT_EQ(product.matmul_flops, flops);
  EXPECT_EQ(at_time(ops, 30).matmul_flops, 0);
  for (int64_t self : {40, 60}) {
    const auto& outside = at_time(ops, self);
    EXPECT_FALSE(outside.float8 || outside.low_precision) << self;
    EXPECT_EQ(outside.matmul_flops, flops) << self;
  }
}

// Every dimension (the batch's rows too, which the weight gradient's product contracts) a multiple of 128:
// each block-scaled format takes every layer, NVFP4 with its whole default recipe (the Hadamard transform,
// 2-D weight tiles, stochastic rounding).
TEST(ProfileLowBit, EachBlockScaledModeRunsAllItsMatrixWorkInItsFormat) {
  const auto modes = ampbench::testing::block_scaled_modes();
  ASSERT_FALSE(modes.empty());
  const nlohmann::json doc = {
      {"name", "profile-block-scaled"},
      {"model", {{"type", "mlp"}, {"options", {{"width", 128}, {"depth", 2}}}}},
      {"data",
       {{"synthetic", {{"train_samples", 256}, {"val_samples", 128}, {"shape", {128}}, {"classes", 128}}}}},
      {"train", {{"epochs", 1}, {"batch_size", 128}, {"warmup_steps", 0}}},
      {"precision", {{"modes", ampbench::testing::mode_names(modes)}}},
      {"profile", {{"steps", 2}, {"warmup_steps", 1}}},
      {"device", "cpu"}};
  const auto result =
      ampbench::train::Experiment(ampbench::config::parse_experiment_config(doc), torch::kCPU).run();
  for (auto mode : modes) {
    SCOPED_TRACE(std::string(ampbench::amp::to_string(mode)));
    const auto found = std::find_if(result.profiles.begin(), result.profiles.end(),
                                    [&](const auto& p) { return p.mode == mode && p.profile; });
    ASSERT_NE(found, result.profiles.end());
    const auto& audit = found->profile->precision;
    ASSERT_TRUE(audit.low_precision_flop_share && audit.float8_flop_share);
    EXPECT_GE(*audit.float8_flop_share, 0.999);
    EXPECT_GE(*audit.low_precision_flop_share, 0.999);
    EXPECT_TRUE(audit.fp32_in_autocast.empty());
  }
}

}  // namespace
