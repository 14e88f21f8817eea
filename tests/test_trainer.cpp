#include <cmath>
#include <limits>

#include <gtest/gtest.h>
#include <torch/torch.h>

#include "amp/mode_support.h"
#include "config/experiment_config.h"
#include "config/memory_estimate.h"
#include "data/batch_order.h"
#include "data/load_dataset.h"
#include "experiment_runs.h"
#include "measure/device.h"
#include "measure/gpu_info.h"
#include "measure/host_sync_check.h"
#include "mode_families.h"
#include "models/registry.h"
#include "numerics/op_sites.h"
#include "numerics/range_observer.h"
#include "passes/experiment.h"
#include "passes/first_batch_gradient.h"
#include "train/classification_loss.h"
#include "train/trainer.h"

using ampbench::testing::run_on_cpu;

namespace {

// fp16 on a tiny MLP: 64 samples in batches of 8 make 8 steps an epoch. With a small initial scale no
// gradient overflows, so the GradScaler doubles its scale after every `growth_interval` optimizer steps.
nlohmann::json fp16_config(int64_t accumulation_steps, double init_scale) {
  return {
      {"name", "trainer"},
      {"model", {{"type", "mlp"}, {"options", {{"width", 8}, {"depth", 1}}}}},
      {"data", {{"synthetic", {{"train_samples", 64}, {"val_samples", 16}, {"shape", {8}}, {"classes", 3}}}}},
      {"train",
       {{"epochs", 1},
        {"batch_size", 8},
        {"accumulation_steps", accumulation_steps},
        {"clip_grad_norm", 1.0}}},
      {"precision",
       {{"modes", {"fp16"}}, {"grad_scaler", {{"init_scale", init_scale}, {"growth_interval", 1}}}}},
      {"device", "cpu"}};
}

using ampbench::train::TrialRecord;
using ampbench::train::TrialStatus;

// One fp16 trial on its own: the Trainer without an Experiment around it.
TrialRecord train_alone(const ampbench::config::ExperimentConfig& config,
                        const ampbench::data::Dataset& dataset, ampbench::amp::PrecisionMode mode,
                        ampbench::models::Network& model) {
  TrialRecord record;
  ampbench::train::Trainer(ampbench::train::TrainerOptions::from(config), dataset, torch::kCPU)
      .run(mode, model, record);
  return record;
}

TrialRecord run_fp16(int64_t accumulation_steps) {
  auto config = ampbench::config::parse_experiment_config(fp16_config(accumulation_steps, 1.0));
  auto dataset = ampbench::data::load_dataset(config.data, torch::kCPU);
  torch::manual_seed(config.seed);
  auto model = config.model.spec->build();
  return train_alone(config, dataset, ampbench::amp::PrecisionMode::fp16, *model);
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

TEST(Trainer, TheLossScaleTraceRecordsEveryChangeAtItsStep) {
  auto plain = run_fp16(1);
  ASSERT_TRUE(plain.loss_scale_trace);
  std::vector<std::pair<int64_t, double>> doubling;
  for (int64_t step = 1; step <= 8; ++step) doubling.emplace_back(step, std::pow(2.0, double(step)));
  EXPECT_EQ(plain.loss_scale_trace->changes, doubling);
  EXPECT_TRUE(plain.loss_scale_trace->skipped_steps.empty());
  EXPECT_EQ(plain.loss_scale_trace->min_scale, 1.0);
  EXPECT_EQ(plain.loss_scale_trace->longest_backoff_run, 0);
  // With 4 batches per optimizer step, the scale moves at steps 4 and 8 only.
  auto accumulated = run_fp16(4);
  EXPECT_EQ(accumulated.loss_scale_trace->changes,
            (std::vector<std::pair<int64_t, double>>{{4, 2.0}, {8, 4.0}}));
}

TEST(Trainer, AccumulatingTwoHalfBatchesTrainsLikeOneWholeBatch) {
  // Batches are cut from the epoch's order in sequence, so two batches of 4 are the 8 samples of one batch
  // of 8. Each half's loss is divided by the accumulation steps, so the summed gradients are the whole
  // batch's mean gradient: the same weights after every optimizer step (plain SGD, no clipping).
  auto config_with = [](int64_t batch, int64_t accumulation) {
    auto doc = fp16_config(accumulation, 1.0);
    doc["precision"]["modes"] = {"fp32"};
    doc["train"]["batch_size"] = batch;
    doc["train"].erase("clip_grad_norm");
    doc["train"]["optimizer"] = {{"type", "sgd"}, {"lr", 0.5}, {"momentum", 0.0}};
    return doc;
  };
  auto whole = run_on_cpu(config_with(8, 1)).trials.at(0).epochs.at(0);
  auto halves = run_on_cpu(config_with(4, 2)).trials.at(0).epochs.at(0);
  EXPECT_NEAR(halves.val_loss, whole.val_loss, 1e-5);
  EXPECT_NEAR(halves.train_loss, whole.train_loss, 1e-5);  // the mean of the halves' means
}

TEST(Trainer, AScaleThatOverflowsFp16BacksOffEveryStepAndIsReportedAsACollapse) {
  // Scaled gradients overflow fp16 for dozens of halvings.
  auto report =
      ampbench::testing::run_and_analyse(ampbench::config::parse_experiment_config(fp16_config(1, 1e30)));
  const auto& trial = report.measured.trials.at(0);
  ASSERT_TRUE(trial.loss_scale_trace);
  const auto& trace = *trial.loss_scale_trace;
  EXPECT_EQ(trace.skipped_steps, (std::vector<int64_t>{1, 2, 3, 4, 5, 6, 7, 8}));
  EXPECT_EQ(trace.longest_backoff_run, 8);
  EXPECT_EQ(trace.min_scale, static_cast<double>(1e30f) / 256.0);
  EXPECT_EQ(trial.epochs.at(0).skipped_steps, 8);
  bool collapse = false;
  for (const auto& w : report.warnings) collapse |= w.kind == ampbench::report::WarningKind::scale_collapse;
  EXPECT_TRUE(collapse);
  // Even 64 back-offs from 1e30 leave the scaled gradients beyond fp16: no fp16 gradient to compare.
  EXPECT_TRUE(report.measured.grad_cosine_vs_fp32.empty());
}

TEST(Trainer, StaticMemoryIsWeightsGradientsAndMomentumTheSameInEveryMode) {
  auto doc = fp16_config(1, 1.0);
  doc["model"]["options"] = {{"width", 512}, {"depth", 2}};
  doc["train"] = {{"epochs", 1}, {"batch_size", 16}, {"optimizer", {{"type", "sgd"}, {"momentum", 0.9}}}};
  doc["precision"] = {{"modes", {"fp32", "fp16", "bf16"}}};
  auto report = run_on_cpu(doc);
  const int64_t parameters = (8 * 512 + 512) + (512 * 512 + 512) + (512 * 3 + 3);
  const int64_t weights_gradients_momentum = 3 * parameters * 4;
  for (const auto& trial : report.trials) {
    SCOPED_TRACE(ampbench::amp::to_string(trial.mode));
    ASSERT_TRUE(trial.memory.static_bytes);
    // Beside them only a few small tensors: the batch order, the loss sum, the scaler's scalars.
    EXPECT_GE(*trial.memory.static_bytes, weights_gradients_momentum);
    EXPECT_LT(*trial.memory.static_bytes, weights_gradients_momentum + 64 * 1024);
    EXPECT_GT(*trial.memory.activation_peak_bytes(), 0);
  }
}

// What the memory estimate counts on the training device for each optimizer is what a trial holds as static
// memory, less a few small tensors (the batch order, the loss sum, AdamW's step counters).
TEST(Trainer, TheEstimatedTrainingStateIsTheMeasuredStaticMemory) {
  const nlohmann::json optimizers[] = {
      {{"type", "sgd"}, {"momentum", 0.9}}, {{"type", "sgd"}, {"momentum", 0.0}}, {{"type", "adamw"}}};
  for (const auto& optimizer : optimizers) {
    SCOPED_TRACE(optimizer.dump());
    auto doc = fp16_config(1, 1.0);
    doc["model"]["options"] = {{"width", 512}, {"depth", 2}};
    doc["train"] = {{"epochs", 1}, {"batch_size", 16}, {"optimizer", optimizer}};
    doc["precision"] = {{"modes", {"fp32"}}};
    const auto estimate = ampbench::config::estimate_memory(ampbench::config::parse_experiment_config(doc));
    const auto measured = run_on_cpu(doc).trials.at(0).memory.static_bytes;
    ASSERT_TRUE(measured);
    EXPECT_GE(double(*measured), estimate.training_bytes);
    EXPECT_LT(double(*measured), estimate.training_bytes + 64 * 1024);
  }
}

TEST(Trainer, TheFirstBatchGradientMatchesItselfInFp32AndIsCloseInBf16) {
  auto config = ampbench::config::parse_experiment_config(fp16_config(1, 1.0));
  auto dataset = ampbench::data::load_dataset(config.data, torch::kCPU);
  torch::manual_seed(0);
  auto model = config.model.spec->build();
  using ampbench::amp::PrecisionMode;
  auto options = ampbench::train::TrainerOptions::from(config);
  auto fp32 =
      ampbench::train::first_batch_gradient(PrecisionMode::fp32, *model, options, dataset, torch::kCPU);
  auto again =
      ampbench::train::first_batch_gradient(PrecisionMode::fp32, *model, options, dataset, torch::kCPU);
  auto bf16 =
      ampbench::train::first_batch_gradient(PrecisionMode::bf16, *model, options, dataset, torch::kCPU);
  ASSERT_TRUE(fp32 && again && bf16);
  EXPECT_EQ(fp32->numel(), (8 * 8 + 8) + (8 * 3 + 3));
  EXPECT_NEAR(*ampbench::train::gradient_cosine(*fp32, *again), 1.0, 1e-12);
  double bf16_cosine = *ampbench::train::gradient_cosine(*bf16, *fp32);
  EXPECT_GT(bf16_cosine, 0.99);
  EXPECT_LT(bf16_cosine, 1.0);  // bf16 rounds: not the same gradient
  // fp16 from a scale that overflows: backed off, as the GradScaler would, until the gradients fit.
  options.grad_scaler.init_scale = std::pow(2.0, 30);
  auto fp16 =
      ampbench::train::first_batch_gradient(PrecisionMode::fp16, *model, options, dataset, torch::kCPU);
  ASSERT_TRUE(fp16);
  EXPECT_GT(*ampbench::train::gradient_cosine(*fp16, *fp32), 0.99);
}

// With dropout in a reference model every mode's first-batch gradient draws the same masks: fp32's is the
// same tensor twice over (different masks would part it), and bf16's is fp32's but for rounding.
TEST(Trainer, TheFirstBatchGradientDrawsTheSameDropoutMasksInEveryMode) {
  auto doc = fp16_config(1, 1.0);
  doc["model"]["options"] = {{"width", 64}, {"depth", 2}, {"dropout", 0.5}};
  auto config = ampbench::config::parse_experiment_config(doc);
  auto dataset = ampbench::data::load_dataset(config.data, torch::kCPU);
  torch::manual_seed(0);
  auto model = config.model.spec->build();
  using ampbench::amp::PrecisionMode;
  const auto options = ampbench::train::TrainerOptions::from(config);
  auto gradient = [&](PrecisionMode mode) {
    return ampbench::train::first_batch_gradient(mode, *model, options, dataset, torch::kCPU).value();
  };
  const auto fp32 = gradient(PrecisionMode::fp32);
  EXPECT_TRUE(torch::equal(fp32, gradient(PrecisionMode::fp32)));
  EXPECT_GT(*ampbench::train::gradient_cosine(gradient(PrecisionMode::bf16), fp32), 0.99);
}

// A zero gradient has no direction: its cosine with anything is undefined, not 0/0 = NaN in a report; so is
// one that is not finite.
TEST(Trainer, TheGradientCosineIsUndefinedForAZeroOrNonFiniteGradient) {
  const auto zero = torch::zeros({5}), some = torch::arange(5, torch::kFloat32);
  EXPECT_EQ(ampbench::train::gradient_cosine(zero, some), std::nullopt);
  EXPECT_EQ(ampbench::train::gradient_cosine(some, zero), std::nullopt);
  auto infinite = some.clone();
  infinite[2] = std::numeric_limits<float>::infinity();
  EXPECT_EQ(ampbench::train::gradient_cosine(infinite, some), std::nullopt);
  EXPECT_NEAR(*ampbench::train::gradient_cosine(some, 2 * some), 1.0, 1e-12);
}

// Taken a chunk at a time (vectors here span three chunks), the cosine equals the whole-vector formula.
TEST(Trainer, TheGradientCosineOfLongVectorsEqualsTheWholeVectorFormula) {
  torch::manual_seed(3);
  const int64_t n = (int64_t(1) << 23) + 17;
  const auto a = torch::randn({n}), b = a + 0.5 * torch::randn({n});
  const auto x = a.to(torch::kFloat64), y = b.to(torch::kFloat64);
  const double whole = (x.dot(y) / (x.norm() * y.norm())).item<double>();
  EXPECT_NEAR(*ampbench::train::gradient_cosine(a, b), whole, 1e-12);
}

// Every mode's timed loop, data on the device and in host memory, under CUDA's sync-debug mode set to error:
// a hidden sync (an .item(), a blocking copy) would fail the trial.
TEST(Trainer, TheTimedLoopMakesNoHostSyncOnAGpu) {
  if (!torch::cuda::is_available()) GTEST_SKIP() << "no CUDA GPU";
  setenv(ampbench::measure::kForbidHostSyncVariable, "1", 1);
  auto config = ampbench::config::parse_experiment_config(fp16_config(2, 1024.0));
  const torch::Device cuda(torch::kCUDA, 0);
  auto staged = ampbench::data::load_dataset(config.data, cuda);
  auto on_host = ampbench::data::load_dataset(config.data, torch::kCPU);
  on_host.staged = false;
  using ampbench::amp::PrecisionMode;
  for (const auto* dataset : {&staged, &on_host}) {
    for (auto mode : {PrecisionMode::fp32, PrecisionMode::tf32, PrecisionMode::fp16, PrecisionMode::bf16}) {
      auto model = config.model.spec->build();
      model->to(cuda);
      TrialRecord record;
      ampbench::train::Trainer(ampbench::train::TrainerOptions::from(config), *dataset, cuda)
          .run(mode, *model, record);
      EXPECT_EQ(record.status, TrialStatus::ok)
          << ampbench::amp::to_string(mode) << ": " << record.detail.value_or("");
    }
  }
  unsetenv(ampbench::measure::kForbidHostSyncVariable);
}

// The fp8 modes' timed loop under the same sync-debug mode, on an MLP whose layers all take float8's
// shapes: scales and amaxes stay on the device.
TEST(Trainer, TheFp8ModesTimedLoopMakesNoHostSyncOnAGpu) {
  if (!torch::cuda::is_available()) GTEST_SKIP() << "no CUDA GPU";
  const auto gpu = ampbench::measure::gpu_details(0);
  if (!gpu) GTEST_SKIP() << "no GPU details";
  using ampbench::amp::PrecisionMode;
  if (auto why = ampbench::amp::check_mode_support(
                     PrecisionMode::fp8, c10::DeviceType::CUDA,
                     ampbench::amp::ComputeCapability{gpu->capability_major, gpu->capability_minor})
                     .skip_reason)
    GTEST_SKIP() << *why;
  setenv(ampbench::measure::kForbidHostSyncVariable, "1", 1);
  auto doc = fp16_config(1, 1.0);
  doc["model"]["options"] = {{"width", 32}, {"depth", 1}};
  doc["data"]["synthetic"] = {{"train_samples", 64}, {"val_samples", 16}, {"shape", {32}}, {"classes", 16}};
  doc["train"]["batch_size"] = 16;
  auto config = ampbench::config::parse_experiment_config(doc);
  const torch::Device cuda(torch::kCUDA, 0);
  auto dataset = ampbench::data::load_dataset(config.data, cuda);
  for (auto mode : ampbench::testing::float8_modes()) {
    auto model = config.model.spec->build();
    model->to(cuda);
    TrialRecord record;
    ampbench::train::Trainer(ampbench::train::TrainerOptions::from(config), dataset, cuda)
        .run(mode, *model, record);
    EXPECT_EQ(record.status, TrialStatus::ok)
        << ampbench::amp::to_string(mode) << ": " << record.detail.value_or("");
    ASSERT_TRUE(record.float8);
    ASSERT_FALSE(record.float8->layers.empty());
    for (const auto& layer : record.float8->layers) {
      EXPECT_GT(layer.float8_calls, 0) << layer.name;
      EXPECT_EQ(layer.bf16_calls, 0) << layer.name;
    }
  }
  unsetenv(ampbench::measure::kForbidHostSyncVariable);
}

// On a GPU the gradients compared are held in host memory, not beside the model on the device.
TEST(Trainer, TheFirstBatchGradientIsHeldInHostMemoryOnAGpu) {
  if (!torch::cuda::is_available()) GTEST_SKIP() << "no CUDA GPU";
  auto config = ampbench::config::parse_experiment_config(fp16_config(1, 1.0));
  const torch::Device cuda(torch::kCUDA, 0);
  auto dataset = ampbench::data::load_dataset(config.data, cuda);
  auto model = config.model.spec->build();
  model->to(cuda);
  const auto options = ampbench::train::TrainerOptions::from(config);
  const auto gradient = ampbench::train::first_batch_gradient(ampbench::amp::PrecisionMode::bf16, *model,
                                                              options, dataset, cuda);
  ASSERT_TRUE(gradient);
  EXPECT_TRUE(gradient->device().is_cpu());
}

namespace {

// Trains to finite losses but validates to NaN, as a model that blew up in its epoch's last steps does.
class NanInValidation : public ampbench::models::Network {
 public:
  NanInValidation() : linear_(register_module("linear", torch::nn::Linear(8, 3))) {}
  torch::Tensor forward(const torch::Tensor& inputs) override {
    auto logits = linear_->forward(inputs);
    return is_training() ? logits : logits * std::numeric_limits<float>::quiet_NaN();
  }

 private:
  torch::nn::Linear linear_;
};

}  // namespace

TEST(Trainer, ANonFiniteValidationLossIsADivergence) {
  auto config = ampbench::config::parse_experiment_config(fp16_config(1, 1.0));
  auto dataset = ampbench::data::load_dataset(config.data, torch::kCPU);
  using ampbench::amp::PrecisionMode;
  for (auto mode : {PrecisionMode::fp32, PrecisionMode::bf16}) {
    NanInValidation model;
    const auto record = train_alone(config, dataset, mode, model);
    EXPECT_EQ(record.status, TrialStatus::diverged);
    EXPECT_TRUE(record.epochs.empty());    // no epoch carries a NaN figure into the reports
    EXPECT_EQ(record.stopped_at_step, 8);  // 64 samples in batches of 8: the epoch's last step
    EXPECT_NE(record.detail.value_or("").find("validation loss after epoch 1 was NaN"), std::string::npos)
        << record.detail.value_or("");
  }
}

TEST(Trainer, ChannelsLastTrainsAResNetToTheSameLossAsContiguous) {
  auto resnet = [](bool channels_last) {
    nlohmann::json doc = {
        {"name", "nhwc"},
        {"model", {{"type", "resnet18"}, {"options", {{"stem", "cifar"}}}}},
        {"data",
         {{"synthetic", {{"train_samples", 16}, {"val_samples", 8}, {"shape", {3, 8, 8}}, {"classes", 3}}}}},
        {"train", {{"epochs", 1}, {"batch_size", 8}, {"channels_last", channels_last}}},
        {"precision", {{"modes", {"fp32"}}}},
        {"device", "cpu"}};
    return run_on_cpu(doc).trials.at(0);
  };
  auto nchw = resnet(false), nhwc = resnet(true);
  EXPECT_FALSE(nchw.channels_last);
  EXPECT_TRUE(nhwc.channels_last);
  ASSERT_EQ(nhwc.status, TrialStatus::ok);
  // The same arithmetic in another memory order: equal up to the kernels' rounding (0.06 % seen).
  EXPECT_NEAR(nhwc.epochs.at(0).val_loss, nchw.epochs.at(0).val_loss, 5e-3 * nchw.epochs.at(0).val_loss);
}

TEST(Trainer, DataLeftInHostMemoryTrainsTheSameAsStagedData) {
  auto config = ampbench::config::parse_experiment_config(fp16_config(1, 1.0));
  auto staged = ampbench::data::load_dataset(config.data, torch::kCPU);
  auto on_host = staged;
  on_host.staged = false;  // as when the data set does not fit on the device: batches cut on the host
  auto train = [&](const ampbench::data::Dataset& dataset) {
    torch::manual_seed(0);
    auto model = config.model.spec->build();
    return train_alone(config, dataset, ampbench::amp::PrecisionMode::fp16, *model);
  };
  auto a = train(staged), b = train(on_host);
  ASSERT_EQ(b.status, TrialStatus::ok);
  EXPECT_EQ(a.epochs.at(0).val_loss, b.epochs.at(0).val_loss);
  EXPECT_EQ(a.data_order_checksum, b.data_order_checksum);
}

TEST(Trainer, TheTrainingLossIsTheMeanOfTheTimedStepsLossesWarmUpLeftOut) {
  // A learning rate far below fp32's resolution leaves the weights as they were, so each step's loss can
  // be recomputed here from the same batches; 8 steps an epoch, the first 3 of them warm-up.
  auto doc = fp16_config(1, 1.0);
  doc["precision"]["modes"] = {"fp32"};
  doc["train"]["warmup_steps"] = 3;
  doc["train"]["optimizer"] = {{"type", "sgd"}, {"lr", 1e-30}, {"momentum", 0.0}};
  auto config = ampbench::config::parse_experiment_config(doc);
  auto dataset = ampbench::data::load_dataset(config.data, torch::kCPU);
  auto model = config.model.spec->build();
  const auto record = train_alone(config, dataset, ampbench::amp::PrecisionMode::fp32, *model);

  auto order = ampbench::data::epoch_order(config.seed, 1, dataset.train_size());
  std::vector<double> losses;
  torch::NoGradGuard no_grad;
  for (int64_t step = 0; step < 8; ++step) {
    auto index = order.narrow(0, step * 8, 8);
    auto logits = model->forward(dataset.train_inputs.index_select(0, index));
    losses.push_back(ampbench::train::classification_loss(logits, dataset.train_labels.index_select(0, index))
                         .item<double>());
  }
  double timed = 0.0, all = 0.0;
  for (int64_t step = 0; step < 8; ++step) (step >= 3 ? timed : all) += losses[step];
  all += timed;
  ASSERT_EQ(record.epochs.at(0).timed_steps, 5);
  EXPECT_NEAR(record.epochs.at(0).train_loss, timed / 5.0, 1e-9);
  EXPECT_GT(std::abs(all / 8.0 - timed / 5.0), 1e-6);  // the warm-up steps would show
}

TEST(Trainer, TheLossScaleTraceOnAGpuRecordsEveryChangeAtItsStep) {
  if (!torch::cuda::is_available()) GTEST_SKIP() << "no CUDA GPU";
  auto doc = fp16_config(1, 1.0);
  doc["device"] = "cuda";
  auto trial = ampbench::train::Experiment(ampbench::config::parse_experiment_config(doc),
                                           ampbench::measure::resolve_device("cuda"))
                   .run()
                   .trials.at(0);
  ASSERT_TRUE(trial.loss_scale_trace)
      << ampbench::train::to_string(trial.status) << ": " << trial.detail.value_or("");
  std::vector<std::pair<int64_t, double>> doubling;
  for (int64_t step = 1; step <= 8; ++step) doubling.emplace_back(step, std::pow(2.0, double(step)));
  EXPECT_EQ(trial.loss_scale_trace->changes, doubling);
  EXPECT_TRUE(trial.loss_scale_trace->skipped_steps.empty());
}

TEST(Trainer, ATimedTrialRefusesToRunUnderANumericsObserver) {
  auto config = ampbench::config::parse_experiment_config(fp16_config(1, 1.0));
  auto dataset = ampbench::data::load_dataset(config.data, torch::kCPU);
  torch::manual_seed(config.seed);
  auto model = config.model.spec->build();
  {
    ampbench::numerics::RangeObserver observer(ampbench::numerics::named_parameters(*model), torch::kHalf);
    EXPECT_THROW(train_alone(config, dataset, ampbench::amp::PrecisionMode::fp16, *model), std::logic_error);
  }
  EXPECT_EQ(train_alone(config, dataset, ampbench::amp::PrecisionMode::fp16, *model).status, TrialStatus::ok);
}
