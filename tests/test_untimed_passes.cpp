// The untimed passes (the lost-update audit, the numerics pass, a divergence replay, the profiled pass) end
// at the next step after a stop request, saying where, the numerics and profiled passes keeping the steps
// they measured; an audit ends where its trial diverged, its figures finite; and the
// numerics pass sizes a pure bf16 update by the optimizer's fp32 update, not by what the bf16 weight kept and
// puts each step's unscaled, finite weight gradients against fp32's.
#include <cmath>
#include <csignal>

#include <gtest/gtest.h>
#include <torch/torch.h>

#include "amp/weight_format.h"
#include "config/experiment_config.h"
#include "config/resolve.h"
#include "passes/divergence_replay.h"
#include "passes/numerics_pass.h"
#include "passes/profiled_pass.h"
#include "passes/update_audit.h"
#include "profile/profile_json.h"
#include "train/stop_request.h"

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

// A linear classifier of the setup's data that raises SIGTERM in its `stop_at`-th forward call: a stop
// request that lands inside a pass at a known step.
class StopsAtForward : public ampbench::models::Network {
 public:
  explicit StopsAtForward(int64_t stop_at) : stop_at_(stop_at) {
    torch::manual_seed(0);
    linear_ = register_module("linear", torch::nn::Linear(16, 4));
  }
  torch::Tensor forward(const torch::Tensor& inputs) override {
    if (++calls_ == stop_at_) std::raise(SIGTERM);
    return linear_->forward(inputs);
  }

 private:
  int64_t stop_at_, calls_ = 0;
  torch::nn::Linear linear_{nullptr};
};

class UntimedPasses : public testing::Test {
 protected:
  void TearDown() override { ampbench::train::StopRequest::reset(); }
};

TEST_F(UntimedPasses, AStopRequestEndsEachPassAtItsNextStepSayingWhere) {
  const auto s = setup(0.05);
  ampbench::train::StopRequest::install_signal_handlers();
  std::raise(SIGTERM);
  ASSERT_TRUE(ampbench::train::StopRequest::requested());
  const auto numerics = ampbench::train::measure_numerics(PrecisionMode::bf16, *s.model(PrecisionMode::bf16),
                                                          s.options, s.dataset, torch::kCPU, 4);
  EXPECT_EQ(numerics.failure, "stopped by SIGTERM before step 1 of 16");
  EXPECT_TRUE(numerics.steps.empty());
  EXPECT_THROW(ampbench::train::audit_updates(PrecisionMode::bf16_pure, *s.model(PrecisionMode::bf16_pure),
                                              s.options, s.dataset, torch::kCPU),
               ampbench::train::PassStopped);
  // The divergence replay of a trial whose loss left the finite numbers at step 12: stopped before its first.
  const ampbench::train::ReplaySetup replay{
      PrecisionMode::bf16, &s.options, &s.dataset, torch::kCPU, [&] { return s.model(PrecisionMode::bf16); },
      std::nullopt,        1};
  const auto diagnosis =
      ampbench::train::diagnose_divergence({"the training loss became NaN", 12, std::nullopt, {}}, replay);
  EXPECT_EQ(diagnosis.failure, "stopped by SIGTERM before step 1 of 12");
  EXPECT_TRUE(diagnosis.steps.empty());
}

// Stopped in step 10 of 16, the numerics pass keeps the sampled steps it measured before (4 and 8 of 4, 8,
// 12, 16), each whole: every layer's and parameter's figures count two steps.
TEST_F(UntimedPasses, AStoppedNumericsPassKeepsTheStepsItMeasured) {
  const auto s = setup(0.05);
  ampbench::train::StopRequest::install_signal_handlers();
  StopsAtForward model(10);
  const auto record =
      ampbench::train::measure_numerics(PrecisionMode::bf16, model, s.options, s.dataset, torch::kCPU, 4);
  EXPECT_EQ(record.failure, "stopped by SIGTERM before step 11 of 16");
  EXPECT_EQ(record.steps, (std::vector<int64_t>{4, 8}));
  ASSERT_FALSE(record.layers.empty());
  EXPECT_EQ(record.layers[0].layer, "linear");
  EXPECT_EQ(record.layers[0].forward.elements, 2 * 16 * 4);  // the [16, 4] logits of two steps
  ASSERT_EQ(record.parameters.size(), 2u);
  EXPECT_EQ(record.parameters[0].elements, 2 * 4 * 16);
  EXPECT_GT(record.parameters[0].updates, 0);
}

// A profiled pass of 2 warm-up and 4 profiled steps: stopped in its second profiled step, its figures are
// the mean of the two it profiled and its status says where it stopped; stopped in its warm-up, it has no
// figures and is no pass that finished.
TEST_F(UntimedPasses, AStoppedProfiledPassSaysWhereAndKeepsTheStepsItProfiled) {
  const auto s = setup(0.05);
  ampbench::train::StopRequest::install_signal_handlers();
  const ampbench::config::ProfileConfig profile{.steps = 4, .warmup_steps = 2};
  const auto pass = [&](int64_t stop_at) {
    StopsAtForward model(stop_at);
    const auto record =
        ampbench::train::profile_record(PrecisionMode::bf16,
                                        ampbench::train::profile_mode(PrecisionMode::bf16, model, s.options,
                                                                      s.dataset, torch::kCPU, profile, {}),
                                        profile.steps);
    ampbench::train::StopRequest::reset();
    ampbench::train::StopRequest::install_signal_handlers();
    return ampbench::profile::profiles_json({record}).at(0);
  };
  const auto partway = pass(4);
  EXPECT_EQ(partway["status"], "stopped");
  EXPECT_EQ(partway["detail"], "stopped by SIGTERM after 2 of 4 profiled steps");
  EXPECT_EQ(partway["steps"], 2);
  EXPECT_GT(partway["step_seconds"].get<double>(), 0.0);
  const auto in_warm_up = pass(1);
  EXPECT_EQ(in_warm_up["status"], "stopped");
  EXPECT_EQ(in_warm_up["detail"], "stopped by SIGTERM after 0 of 4 profiled steps");
  EXPECT_FALSE(in_warm_up.contains("steps")) << in_warm_up.dump();
  const auto whole = pass(0);  // never stops
  EXPECT_EQ(whole["status"], "ok");
  EXPECT_EQ(whole["detail"], nullptr);
  EXPECT_EQ(whole["steps"], 4);
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

// At a learning rate of 1e-6 almost every update is far below half a bf16 ulp of its weight: the pure bf16
// weights keep almost none of them. The update the optimizer computed is still there, as large as bf16's
// with fp32 master weights (read there from the fp32 weights' change): the pass reports that one.
TEST_F(UntimedPasses, APureBf16UpdateIsSizedByTheOptimizersFp32UpdateNotByWhatTheWeightKept) {
  const auto s = setup(1e-6);
  const auto ratios = [&](PrecisionMode mode) {
    const auto record =
        ampbench::train::measure_numerics(mode, *s.model(mode), s.options, s.dataset, torch::kCPU, 2);
    std::vector<std::pair<double, double>> out;  // update/weight, the share of elements the step changed
    for (const auto& p : record.parameters)
      out.emplace_back(std::sqrt(p.update_squares / p.weight_squares),
                       double(p.updates) / double(p.elements));
    return out;
  };
  const auto pure = ratios(PrecisionMode::bf16_pure), mixed = ratios(PrecisionMode::bf16);
  ASSERT_EQ(pure.size(), mixed.size());
  for (size_t i = 0; i < pure.size(); ++i) {
    SCOPED_TRACE("parameter " + std::to_string(i));
    EXPECT_LT(pure[i].second, 0.1) << "the bf16 weights kept the updates: nothing planted";
    EXPECT_GT(mixed[i].first, 0.0);
    EXPECT_NEAR(pure[i].first, mixed[i].first, 0.1 * mixed[i].first);
  }
}

// fp16's loss scale planted to overflow the first step (the scaler skips it and backs off to 2^4), then to
// double at every step: the sampled steps' gradients are at eight different scales, one of them inf. Each
// layer's weight gradient still points as fp32's: the overflowed step adds nothing and each other step is
// unscaled by its own scale (summed at their scales, the later steps' gradients would outweigh the earlier).
TEST_F(UntimedPasses, DeparturesPutEachFiniteStepsUnscaledGradientAgainstFp32s) {
  auto s = setup(0.05);
  s.options.train.epochs = 1;
  s.options.grad_scaler = {.init_scale = std::ldexp(1.0, 40),
                           .growth_factor = 2.0,
                           .backoff_factor = std::ldexp(1.0, -36),
                           .growth_interval = 1};
  const auto record =
      ampbench::train::measure_numerics(PrecisionMode::fp16, *s.model(PrecisionMode::fp16), s.options,
                                        s.dataset, torch::kCPU, 8, s.model(PrecisionMode::fp32));
  std::vector<double> planted{std::ldexp(1.0, 40)};
  for (int step = 2; step <= 8; ++step) planted.push_back(std::ldexp(1.0, step + 2));
  ASSERT_EQ(record.loss_scales, planted);
  ASSERT_EQ(record.departures.size(), 2u);
  for (const auto& layer : record.departures) {
    SCOPED_TRACE(layer.layer);
    ASSERT_TRUE(layer.gradient_cosine()) << "no finite step was counted";
    EXPECT_GT(*layer.gradient_cosine(), 0.999);
  }
}

// Each pass shows its mode and its steps while it runs (nothing sits silent) and gives the line back to
// the trials when it ends: the last value it showed is its last step, of all it had to run.
TEST_F(UntimedPasses, EachPassShowsItsStepsAndGivesTheLineBack) {
  const auto s = setup(0.05);
  ampbench::train::Progress progress;
  const auto audit =
      ampbench::train::audit_updates(PrecisionMode::bf16_pure, *s.model(PrecisionMode::bf16_pure), s.options,
                                     s.dataset, torch::kCPU, &progress);
  EXPECT_EQ(progress.mode.load(), static_cast<int>(PrecisionMode::bf16_pure));
  EXPECT_EQ(progress.pass_steps.load(), audit.steps.back());
  EXPECT_EQ(progress.pass_step.load(), audit.steps.back());
  EXPECT_EQ(progress.pass.load(), static_cast<int>(ampbench::train::PassKind::trial));

  const auto record =
      ampbench::train::measure_numerics(PrecisionMode::fp16, *s.model(PrecisionMode::fp16), s.options,
                                        s.dataset, torch::kCPU, 3, nullptr, &progress);
  EXPECT_EQ(progress.mode.load(), static_cast<int>(PrecisionMode::fp16));
  EXPECT_EQ(progress.pass_steps.load(), record.steps.back());
  EXPECT_EQ(progress.pass_step.load(), record.steps.back());
  EXPECT_EQ(progress.pass.load(), static_cast<int>(ampbench::train::PassKind::trial));
}

}  // namespace
