// The untimed passes (the lost-update audit, the numerics pass) end at the next step after a stop request,
// saying where; and an audit ends where its trial diverged, its figures finite.
#include <csignal>

#include <gtest/gtest.h>
#include <torch/torch.h>

#include "amp/weight_format.h"
#include "config/experiment_config.h"
#include "config/resolve.h"
#include "train/numerics_pass.h"
#include "train/stop_request.h"
#include "train/update_audit.h"

namespace {

using ampbench::amp::PrecisionMode;

nlohmann::json document(double lr) {
  return {{"name", "passes"},
          {"model", {{"type", "mlp"}, {"options", {{"width", 32}, {"depth", 1}}}}},
          {"data",
           {{"synthetic", {{"train_samples", 128}, {"val_samples", 32}, {"shape", {16}}, {"classes", 4}}}}},
          {"train", {{"epochs", 2}, {"batch_size", 16}, {"optimizer", {{"type", "sgd"}, {"lr", lr}}}}},
          {"device", "cpu"}};
}

struct Setup {
  ampbench::config::ExperimentConfig config;
  ampbench::data::Dataset dataset;
  ampbench::train::TrainerOptions options;
  std::shared_ptr<ampbench::models::Network> model(PrecisionMode mode) const {
    torch::manual_seed(0);
    auto m = config.model.spec->build();
    ampbench::amp::cast_to_weight_dtype(*m, mode);
    return m;
  }
};

Setup setup(double lr) {
  auto parsed = ampbench::config::parse_experiment_config(document(lr));
  auto dataset = ampbench::config::load_data(parsed, torch::kCPU);
  auto fitted = ampbench::config::fitted_to(parsed, dataset, torch::kCPU);
  auto options = ampbench::train::TrainerOptions::from(fitted);
  return Setup{std::move(fitted), std::move(dataset), std::move(options)};
}

class UntimedPasses : public testing::Test {
 protected:
  void TearDown() override { ampbench::train::StopRequest::reset(); }
};

TEST_F(UntimedPasses, AStopRequestEndsEachPassAtItsNextStepSayingWhere) {
  const auto s = setup(0.05);
  ampbench::train::StopRequest::install_signal_handlers();
  std::raise(SIGTERM);
  ASSERT_TRUE(ampbench::train::StopRequest::requested());
  try {
    ampbench::train::measure_numerics(PrecisionMode::bf16, *s.model(PrecisionMode::bf16), s.options,
                                      s.dataset, torch::kCPU, 4);
    FAIL() << "the numerics pass ran on after the stop";
  } catch (const ampbench::train::PassStopped& e) {
    EXPECT_EQ(std::string(e.what()), "stopped by SIGTERM before step 1 of 16");
  }
  EXPECT_THROW(ampbench::train::audit_updates(PrecisionMode::bf16_pure, *s.model(PrecisionMode::bf16_pure),
                                              s.options, s.dataset, torch::kCPU),
               ampbench::train::PassStopped);
}

// A learning rate that sends the pure bf16 weights to inf: the audit stops at the step its loss left the
// finite numbers, and every figure it keeps is finite (report.json's schema takes no NaN).
TEST_F(UntimedPasses, AnAuditStopsWhereItsTrialDivergedAndKeepsOnlyFiniteFigures) {
  const auto s = setup(1e6);
  const auto audit = ampbench::train::audit_updates(
      PrecisionMode::bf16_pure, *s.model(PrecisionMode::bf16_pure), s.options, s.dataset, torch::kCPU);
  ASSERT_TRUE(audit.diverged_at_step) << "the trial did not diverge";
  EXPECT_EQ(audit.wanted.size(), audit.steps.size());
  for (size_t i = 0; i < audit.steps.size(); ++i) {
    EXPECT_LT(audit.steps[i], *audit.diverged_at_step);
    EXPECT_TRUE(std::isfinite(audit.wanted[i]) && std::isfinite(audit.taken[i]));
  }
  EXPECT_FALSE(audit.failure);
}

}  // namespace
