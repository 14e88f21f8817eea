// The profiled pass: op classes, the attribution of time and FLOPs on planted events, and the real profiler
// on a tiny model (16-bit shares, a planted fp32 op under autocast, additivity, no profiled timed figure).
#include <csignal>

#include <ATen/autocast_mode.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include "config/experiment_config.h"
#include "data/load_dataset.h"
#include "experiment_runs.h"
#include "mode_families.h"
#include "passes/experiment.h"
#include "passes/profiled_pass.h"
#include "profile/attributed_op.h"
#include "profile/event_sorting.h"
#include "profile/kineto_capture.h"
#include "profile/mode_profile.h"
#include "report/gates.h"
#include "report/summary.h"
#include "report/warnings.h"
#include "train/stop_request.h"
#include "train/trainer.h"

namespace {

using ampbench::amp::PrecisionMode;
using ampbench::profile::AttributedOp;
using ampbench::profile::CapturedEvents;
using ampbench::profile::OpClass;
using ampbench::profile::OpEvent;
using ampbench::profile::Phase;

OpClass class_of(const std::string& name, std::vector<std::string> dtypes = {}) {
  return ampbench::profile::classify_op(name, dtypes);
}

TEST(ProfileOps, NamesFallIntoTheirClasses) {
  EXPECT_EQ(class_of("aten::addmm"), OpClass::matmul_conv);
  EXPECT_EQ(class_of("aten::convolution_backward"), OpClass::matmul_conv);
  EXPECT_EQ(class_of("aten::_slow_conv2d_forward"), OpClass::matmul_conv);
  EXPECT_EQ(class_of("aten::_scaled_dot_product_flash_attention_for_cpu"), OpClass::attention);
  EXPECT_EQ(class_of("aten::native_layer_norm_backward"), OpClass::normalization);
  EXPECT_EQ(class_of("aten::_log_softmax"), OpClass::reduction_loss);
  EXPECT_EQ(class_of("aten::nll_loss_forward"), OpClass::reduction_loss);
  EXPECT_EQ(class_of("aten::threshold_backward"), OpClass::elementwise);
  EXPECT_EQ(class_of("aten::_fused_adamw_"), OpClass::optimizer);
  EXPECT_EQ(class_of("aten::_amp_foreach_non_finite_check_and_unscale_"), OpClass::optimizer);
  EXPECT_EQ(class_of("aten::_foreach_norm"), OpClass::optimizer);
  EXPECT_EQ(class_of("aten::index_select"), OpClass::data_movement);
  EXPECT_EQ(class_of("aten::fill_"), OpClass::other);
  // A copy is a cast when it changes the dtype (autocast's), and data movement when it does not.
  EXPECT_EQ(class_of("aten::copy_", {"c10::BFloat16", "float", "Scalar"}), OpClass::cast);
  EXPECT_EQ(class_of("aten::copy_", {"float", "float", "Scalar"}), OpClass::data_movement);
  EXPECT_EQ(class_of("aten::_to_copy", {"float"}), OpClass::cast);
}

OpEvent op(std::string name, int64_t start, int64_t end, std::vector<std::string> dtypes = {},
           std::vector<std::vector<int64_t>> shapes = {}, double flops = 0, uint64_t correlation = 0) {
  return {std::move(name), 1, start, end, std::move(dtypes), std::move(shapes), flops, correlation};
}

// One step [0, 1000): forward [0, 500), backward [500, 900), optimizer [900, 1000). Under autocast, an fp32
// aten::addmm re-dispatches to a bf16 one (both carry the profiler's FLOPs); the bf16 one casts first.
CapturedEvents planted_step() {
  CapturedEvents e;
  e.steps = {{0, 1000}};
  e.phases = {{Phase::forward, {0, 500}}, {Phase::backward, {500, 900}}, {Phase::optimizer, {900, 1000}}};
  e.ops = {op("ampbench::forward", 0, 500),
           op("aten::addmm", 10, 410, {"float", "float", "float"}, {{8}, {4, 16}, {16, 8}}, 1024),
           op("aten::copy_", 20, 60, {"c10::BFloat16", "float", "Scalar"}, {{16, 8}, {16, 8}, {}}),
           op("aten::addmm", 100, 400, {"c10::BFloat16", "c10::BFloat16", "c10::BFloat16"},
              {{8}, {4, 16}, {16, 8}}, 1024),
           op("aten::mm", 600, 800, {"float", "float"}, {{16, 4}, {4, 8}}, 1024),
           op("aten::_fused_sgd_", 910, 990),
           op("aten::add", 1500, 1600)};  // after the step: not the pass's
  return e;
}

const AttributedOp& find(const std::vector<AttributedOp>& ops, const std::string& name, int64_t self_ns) {
  for (const auto& o : ops) {
    if (o.name == name && o.self_ns == self_ns) return o;
  }
  throw std::runtime_error("no " + name + " with self time " + std::to_string(self_ns));
}

TEST(ProfileOps, OwnTimeNestsAndFlopsAreCountedOnceWhereTheArithmeticRan) {
  const auto ops = ampbench::profile::attribute_ops(planted_step());
  ASSERT_EQ(ops.size(), 5u);  // the marker and the op after the step are left out
  const auto& outer = find(ops, "aten::addmm", 400 - 40 - 300);
  const auto& inner = find(ops, "aten::addmm", 300);
  EXPECT_EQ(outer.inclusive_ns, 400);
  EXPECT_EQ(outer.matmul_flops, 0);  // counted at the bf16 call it re-dispatched to
  EXPECT_EQ(inner.matmul_flops, 1024);
  EXPECT_TRUE(inner.low_precision);
  EXPECT_FALSE(outer.low_precision);
  const auto& cast = find(ops, "aten::copy_", 40);
  EXPECT_EQ(cast.op_class, OpClass::cast);
  EXPECT_EQ(cast.cast_bytes, 16 * 8 * 2);
  EXPECT_EQ(find(ops, "aten::mm", 200).phase, Phase::backward);
  EXPECT_EQ(find(ops, "aten::_fused_sgd_", 80).phase, Phase::optimizer);
}

// Fused attention's backward takes its forward's log-sum-exp in fp32 by design: its operands decide.
TEST(ProfileOps, AnOpRunsInSixteenBitWhenMostOfItsFloatingInputsDo) {
  CapturedEvents e;
  e.steps = {{0, 100}};
  const std::vector<int64_t> qkv{2, 4, 8, 16};
  e.ops = {op("aten::_scaled_dot_product_flash_attention_for_cpu_backward", 0, 50,
              {"c10::BFloat16", "c10::BFloat16", "c10::BFloat16", "c10::BFloat16", "c10::BFloat16", "float"},
              {qkv, qkv, qkv, qkv, qkv, {2, 4, 8}}),
           op("aten::linear", 50, 90, {"c10::BFloat16", "float", "float"}, {{8, 16}, {4, 16}, {4}})};
  const auto ops = ampbench::profile::attribute_ops(e);
  const auto& attention = find(ops, "aten::_scaled_dot_product_flash_attention_for_cpu_backward", 50);
  EXPECT_TRUE(attention.low_precision);
  EXPECT_EQ(attention.matmul_flops, 2.0 * 4.0 * (2 * 4 * 8 * 16) * 8);  // twice the forward's 4 B H L S E
  EXPECT_FALSE(find(ops, "aten::linear", 40).low_precision);
}

// A float8 product is float8 work with 2 M K N FLOPs; on the CPU, the fp32 mm it is emulated by (which
// the profiler counts FLOPs for) is float8 work too, and the product's FLOPs are counted there, once.
TEST(ProfileOps, AFloat8ProductAndItsCpuEmulationAreFloat8Work) {
  CapturedEvents e;
  e.steps = {{0, 300}};
  const std::vector<std::string> float8{"c10::Float8_e4m3fn", "c10::Float8_e4m3fn", "float", "float"};
  e.ops = {op("aten::_scaled_mm", 0, 100, float8, {{32, 64}, {64, 16}, {}, {}}),
           op("aten::_scaled_mm", 100, 250, float8, {{32, 64}, {64, 16}, {}, {}}),
           op("aten::mm", 120, 220, {"float", "float"}, {{32, 64}, {64, 16}}, 2.0 * 32 * 64 * 16),
           op("aten::mm", 260, 290, {"float", "float"}, {{32, 64}, {64, 16}}, 2.0 * 32 * 64 * 16)};
  const auto ops = ampbench::profile::attribute_ops(e);
  const auto& alone = find(ops, "aten::_scaled_mm", 100);
  EXPECT_EQ(alone.op_class, OpClass::matmul_conv);
  EXPECT_TRUE(alone.float8 && alone.low_precision);
  EXPECT_EQ(alone.matmul_flops, 2.0 * 32 * 64 * 16);
  EXPECT_EQ(find(ops, "aten::_scaled_mm", 50).matmul_flops, 0);  // counted at the mm inside it
  const auto& emulation = find(ops, "aten::mm", 100);
  EXPECT_TRUE(emulation.float8 && emulation.low_precision);
  EXPECT_EQ(emulation.matmul_flops, 2.0 * 32 * 64 * 16);
  const auto& fp32 = find(ops, "aten::mm", 30);  // outside any float8 product
  EXPECT_FALSE(fp32.float8 || fp32.low_precision);
}

// CUDA's fused attention calls its kernels with [B, L, H, E] where the public op has [B, H, L, E]; the
// inner call keeps the FLOPs, so each variant must read the key length where its layout has it.
TEST(ProfileOps, AttentionFlopsReadTheKeyLengthWhereEachVariantsLayoutHasIt) {
  const int64_t B = 2, H = 12, L = 8, S = 32, E = 16;
  const double forward = 4.0 * double(B * H * L * E) * double(S);
  const std::vector<int64_t> q_bhle{B, H, L, E}, k_bhse{B, H, S, E}, q_blhe{B, L, H, E}, k_bshe{B, S, H, E};
  const std::vector<std::string> bf16(3, "c10::BFloat16");
  struct Variant {
    std::string name;
    std::vector<std::vector<int64_t>> shapes;
    double flops;
  };
  const std::vector<Variant> variants{
      {"aten::_scaled_dot_product_flash_attention", {q_bhle, k_bhse, k_bhse}, forward},
      {"aten::_scaled_dot_product_efficient_attention", {q_bhle, k_bhse, k_bhse}, forward},
      {"aten::_scaled_dot_product_cudnn_attention", {q_bhle, k_bhse, k_bhse}, forward},
      {"aten::_scaled_dot_product_flash_attention_for_cpu", {q_bhle, k_bhse, k_bhse}, forward},
      {"aten::_flash_attention_forward", {q_blhe, k_bshe, k_bshe}, forward},
      {"aten::_efficient_attention_forward", {q_blhe, k_bshe, k_bshe}, forward},
      {"aten::_scaled_dot_product_flash_attention_backward", {q_bhle, q_bhle, k_bhse, k_bhse}, 2 * forward},
      {"aten::_scaled_dot_product_efficient_attention_backward",
       {q_bhle, q_bhle, k_bhse, k_bhse},
       2 * forward},
      {"aten::_flash_attention_backward", {q_blhe, q_blhe, k_bshe, k_bshe}, 2 * forward},
      {"aten::_efficient_attention_backward", {q_blhe, q_blhe, k_bshe, k_bshe}, 2 * forward},
  };
  for (const auto& v : variants) {
    CapturedEvents e;
    e.steps = {{0, 100}};
    e.ops = {op(v.name, 0, 50, std::vector<std::string>(v.shapes.size(), "c10::BFloat16"), v.shapes)};
    EXPECT_EQ(ampbench::profile::attribute_ops(e).at(0).matmul_flops, v.flops) << v.name;
  }
  // The public op around CUDA's kernel: the kernel's call counts, once.
  CapturedEvents nested;
  nested.steps = {{0, 100}};
  nested.ops = {op("aten::_scaled_dot_product_flash_attention", 0, 60, bf16, {q_bhle, k_bhse, k_bhse}),
                op("aten::_flash_attention_forward", 10, 50, bf16, {q_blhe, k_bshe, k_bshe})};
  double total = 0;
  for (const auto& o : ampbench::profile::attribute_ops(nested)) total += o.matmul_flops;
  EXPECT_EQ(total, forward);
}

TEST(ProfileOps, TheSummaryAddsUpAndAuditsThePrecision) {
  const auto events = planted_step();
  const auto p = ampbench::profile::summarize_profile(events, ampbench::profile::attribute_ops(events), true);
  EXPECT_DOUBLE_EQ(p.step_seconds, 1000e-9);
  EXPECT_NEAR(p.op_seconds, (400 + 200 + 80) * 1e-9, 1e-15);  // the roots' time, each op's own counted once
  EXPECT_NEAR(p.overhead_seconds, 320e-9, 1e-15);
  // Half the matrix FLOPs (the forward's) ran in bf16; the backward's mm ran in fp32, outside autocast.
  ASSERT_TRUE(p.precision.low_precision_flop_share);
  EXPECT_DOUBLE_EQ(*p.precision.low_precision_flop_share, 0.5);
  EXPECT_TRUE(p.precision.fp32_in_autocast.empty());  // the fp32 mm is in the backward pass
  EXPECT_NEAR(p.precision.cast_seconds, 40e-9, 1e-15);
}

TEST(ProfileOps, OnAGpuAnOpsTimeIsItsKernels) {
  auto events = planted_step();
  events.ops[3].correlation_id = 7;  // the bf16 addmm launched two kernels
  events.device = {{120, 7}, {30, 7}, {55, 99}};
  const auto ops = ampbench::profile::attribute_ops(events);
  EXPECT_EQ(find(ops, "aten::addmm", 150).inclusive_ns, 150);
  EXPECT_EQ(find(ops, "aten::addmm", 0).inclusive_ns, 150);  // the fp32 wrapper launched none itself
}

// Kineto's activity types (libkineto::ActivityType), as LibTorch's profiler reports them.
namespace activity {
constexpr uint8_t cpu_op = 0, user_annotation = 1, gpu_user_annotation = 2, gpu_memcpy = 3, gpu_memset = 4,
                  kernel = 5, cuda_runtime = 7, cuda_driver = 8, overhead = 11, last = 26;
}

TEST(ProfileEvents, OnlyHostOpsAndDeviceWorkWithALaunchingOpAreKept) {
  using ampbench::profile::EventRole;
  using ampbench::profile::role_of;
  for (int type = 0; type <= activity::last; ++type) {
    auto expected = EventRole::ignored;
    if (type == activity::cpu_op || type == activity::user_annotation) expected = EventRole::host_op;
    if (type == activity::gpu_memcpy || type == activity::gpu_memset || type == activity::kernel)
      expected = EventRole::device_work;
    EXPECT_EQ(role_of(uint8_t(type), 42), expected) << "activity type " << type;
  }
  for (auto device : {activity::kernel, activity::gpu_memcpy, activity::gpu_memset})
    EXPECT_EQ(role_of(device, 0), EventRole::ignored);  // no launching op: a user scope's device span
}

ampbench::profile::RecordedEvent recorded(uint8_t type, std::string name, int64_t start, int64_t end,
                                          uint64_t correlation, uint64_t linked = 0) {
  return {type, op(std::move(name), start, end, {}, {}, 0, correlation), linked};
}

// A GPU step as Kineto records it. The runtime call that launched addmm's kernel has CUPTI's correlation
// id, which here equals addmm's own (the counters overlap); were it kept as an op, it could take the
// kernel's time, and op time would exceed the step's.
TEST(ProfileEvents, ARuntimeCallIsNeverCreditedWithAnOpsKernelTime) {
  using namespace activity;
  const auto sorted = ampbench::profile::sort_events({
      recorded(user_annotation, "ampbench::step", 0, 1000, 1),
      recorded(gpu_user_annotation, "ampbench::step", 5, 995, 0, 0),
      recorded(user_annotation, "ampbench::forward", 0, 900, 2),
      recorded(cpu_op, "aten::addmm", 10, 400, 7),
      recorded(cuda_runtime, "cudaLaunchKernel", 50, 60, 7),
      recorded(cuda_driver, "cuLaunchKernel", 52, 58, 7),
      recorded(overhead, "Instrumentation", 0, 5, 7),
      recorded(kernel, "sm90_gemm", 100, 400, 0, 7),
      recorded(cpu_op, "aten::copy_", 410, 460, 8),
      recorded(gpu_memcpy, "Memcpy HtoD", 420, 470, 0, 8),
      recorded(gpu_memset, "Memset", 470, 480, 0, 8),
  });
  ASSERT_EQ(sorted.steps.size(), 1u);
  EXPECT_EQ(sorted.steps[0].length(), 1000);
  ASSERT_EQ(sorted.phases.size(), 1u);
  ASSERT_EQ(sorted.ops.size(), 2u);
  EXPECT_EQ(sorted.ops[0].name, "aten::addmm");
  EXPECT_EQ(sorted.ops[1].name, "aten::copy_");
  ASSERT_EQ(sorted.device.size(), 3u);
  const auto ops = ampbench::profile::attribute_ops(sorted);
  EXPECT_EQ(find(ops, "aten::addmm", 300).inclusive_ns, 300);
  EXPECT_EQ(find(ops, "aten::copy_", 60).inclusive_ns, 60);
  const auto p = ampbench::profile::summarize_profile(sorted, ops, false);
  EXPECT_TRUE(p.device_time);
  EXPECT_NEAR(p.overhead_seconds, (1000 - 360) * 1e-9, 1e-15);
}

// A tiny MLP run as the experiment runs it, with the profiled pass on.
ampbench::config::ExperimentConfig tiny(int64_t steps,
                                        std::vector<std::string> modes = {"fp32", "fp16", "bf16"},
                                        int64_t classes = 4) {
  nlohmann::json doc = {
      {"name", "profile"},
      {"model", {{"type", "mlp"}, {"options", {{"width", 32}, {"depth", 2}}}}},
      {"data",
       {{"synthetic", {{"train_samples", 64}, {"val_samples", 16}, {"shape", {16}}, {"classes", classes}}}}},
      {"train", {{"epochs", 2}, {"batch_size", 16}, {"warmup_steps", 1}}},
      {"precision", {{"modes", modes}}},
      {"profile", {{"steps", steps}, {"warmup_steps", 2}}},
      {"device", "cpu"}};
  return ampbench::config::parse_experiment_config(doc);
}

const ampbench::profile::ModeProfile& profile_of(const ampbench::train::ExperimentResult& r,
                                                 PrecisionMode mode) {
  for (const auto& p : r.profiles) {
    if (p.mode == mode && p.profile) return *p.profile;
  }
  throw std::runtime_error("no profile");
}

TEST(ProfiledPass, SixteenBitModesRunTheirMatrixWorkInSixteenBitAndFp32InNone) {
  const auto result = ampbench::train::Experiment(tiny(3), torch::kCPU).run();
  ASSERT_EQ(result.profiles.size(), 3u);
  EXPECT_EQ(profile_of(result, PrecisionMode::fp32).precision.low_precision_flop_share, 0.0);
  for (auto mode : {PrecisionMode::fp16, PrecisionMode::bf16}) {
    const auto& p = profile_of(result, mode);
    EXPECT_EQ(p.steps, 3);
    ASSERT_TRUE(p.precision.low_precision_flop_share);
    EXPECT_GE(*p.precision.low_precision_flop_share, 0.99) << ampbench::amp::to_string(mode);
    EXPECT_GT(p.precision.cast_bytes, 0);
    EXPECT_TRUE(p.precision.fp32_in_autocast.empty());
  }
}

// Every layer of this MLP has dimensions of 16s: the fp8 modes run all its matrix work in float8.
TEST(ProfiledPass, TheFp8ModesRunTheirLinearLayersInFloat8) {
  const auto fp8 = ampbench::testing::float8_modes();
  const auto modes = ampbench::testing::mode_names(fp8, {"fp32"});
  const auto result = ampbench::train::Experiment(tiny(2, modes, /*classes=*/16), torch::kCPU).run();
  EXPECT_EQ(profile_of(result, PrecisionMode::fp32).precision.float8_flop_share, 0.0);
  for (auto mode : fp8) {
    const auto& p = profile_of(result, mode).precision;
    ASSERT_TRUE(p.float8_flop_share);
    EXPECT_GE(*p.float8_flop_share, 0.99) << ampbench::amp::to_string(mode);
    EXPECT_GE(*p.low_precision_flop_share, *p.float8_flop_share);
    EXPECT_TRUE(p.fp32_in_autocast.empty());
  }
}

TEST(ProfiledPass, NoTimedEpochIsTakenWithTheProfilerOn) {
  const auto config = tiny(4);
  const auto result = ampbench::train::Experiment(config, torch::kCPU).run();
  for (const auto& t : result.trials) {
    ASSERT_EQ(t.epochs.size(), 2u);
    for (const auto& e : t.epochs) EXPECT_FALSE(e.profiler_on);
    EXPECT_EQ(t.epochs[0].timed_steps + t.epochs[1].timed_steps, 4 + 3);  // no profiled step among them
  }
  // The check can fail: a trial trained while a capture records says so.
  auto dataset = ampbench::data::load_dataset(config.data, torch::kCPU);
  auto model = config.model.spec->build();
  ampbench::train::TrialRecord record;
  ampbench::profile::KinetoCapture capture(false);
  capture.start();
  ampbench::train::Trainer(ampbench::train::TrainerOptions::from(config), dataset, torch::kCPU)
      .run(PrecisionMode::fp32, *model, record);
  bool written = false;
  capture.stop({}, written);
  ASSERT_FALSE(record.epochs.empty());
  EXPECT_TRUE(record.epochs[0].profiler_on);
}

// The ops' own times, summed by class, are the outermost ops' time; with the framework's overhead, the step.
TEST(ProfiledPass, ClassTimesAddUpToTheStep) {
  const auto config = tiny(3);
  auto dataset = ampbench::data::load_dataset(config.data, torch::kCPU);
  auto model = config.model.spec->build();
  bool written = false;
  const auto events = ampbench::train::capture_profiled_steps(
      PrecisionMode::bf16, *model, ampbench::train::TrainerOptions::from(config), dataset, torch::kCPU,
      config.profile, {}, written);
  const auto ops = ampbench::profile::attribute_ops(events);
  const auto p = ampbench::profile::summarize_profile(events, ops, true);
  // Outermost ops, found without the nesting: those no other op of their thread encloses.
  double covered = 0;
  for (const auto& o : events.ops) {
    if (o.name.starts_with("ampbench::") || o.start_ns < events.steps.front().start_ns) continue;
    bool enclosed = false;
    for (const auto& other : events.ops) {
      enclosed |= &other != &o && !other.name.starts_with("ampbench::") && other.thread == o.thread &&
                  other.start_ns <= o.start_ns && o.end_ns <= other.end_ns &&
                  (other.start_ns < o.start_ns || other.end_ns > o.end_ns || &other < &o);
    }
    if (!enclosed) covered += double(o.end_ns - o.start_ns) * 1e-9 / double(p.steps);
  }
  double classes = 0;
  for (const auto& c : p.classes) classes += c.seconds;
  EXPECT_NEAR(classes, covered, 0.001 * p.step_seconds);
  EXPECT_LE(classes, p.step_seconds * 1.001);
  EXPECT_NEAR(classes + p.overhead_seconds, p.step_seconds, 1e-12);
  EXPECT_GE(p.overhead_seconds, 0);
}

// A model that is interrupted (SIGINT, as by Ctrl-C) in its Nth forward pass.
class InterruptedAt : public ampbench::models::Network {
 public:
  InterruptedAt(std::shared_ptr<ampbench::models::Network> inner, int at)
      : inner_(register_module("inner", std::move(inner))), at_(at) {}
  torch::Tensor forward(const torch::Tensor& inputs) override {
    if (++calls_ == at_) std::raise(SIGINT);
    return inner_->forward(inputs);
  }

 private:
  std::shared_ptr<ampbench::models::Network> inner_;
  int at_, calls_ = 0;
};

TEST(ProfiledPass, AStopRequestEndsThePassAfterTheStepItCameIn) {
  const auto config = tiny(5);  // 2 warm-up steps, then 5 profiled
  auto dataset = ampbench::data::load_dataset(config.data, torch::kCPU);
  InterruptedAt model(config.model.spec->build(), 4);  // in the second profiled step
  ampbench::train::StopRequest::install_signal_handlers();
  bool written = false;
  const auto events = ampbench::train::capture_profiled_steps(
      PrecisionMode::bf16, model, ampbench::train::TrainerOptions::from(config), dataset, torch::kCPU,
      config.profile, {}, written);
  ampbench::train::StopRequest::reset();
  std::signal(SIGINT, SIG_DFL);
  EXPECT_EQ(events.steps.size(), 2u);
}

// A model whose first layer runs outside autocast, as a model that casts back to fp32 would.
class Fp32Island : public ampbench::models::Network {
 public:
  Fp32Island() {
    wide_ = register_module("wide", torch::nn::Linear(16, 256));
    head_ = register_module("head", torch::nn::Linear(256, 4));
  }
  torch::Tensor forward(const torch::Tensor& inputs) override {
    torch::Tensor hidden;
    {
      at::autocast::set_autocast_enabled(at::kCPU, false);
      hidden = wide_->forward(inputs.to(torch::kFloat));
      at::autocast::set_autocast_enabled(at::kCPU, true);
    }
    return head_->forward(hidden);
  }

 private:
  torch::nn::Linear wide_{nullptr}, head_{nullptr};
};

TEST(ProfiledPass, AnFp32OpUnderAutocastLowersTheShareAndRaisesTheWarningAndGate) {
  const auto config = tiny(3);
  auto dataset = ampbench::data::load_dataset(config.data, torch::kCPU);
  Fp32Island model;
  const auto p =
      ampbench::train::profile_mode(PrecisionMode::bf16, model, ampbench::train::TrainerOptions::from(config),
                                    dataset, torch::kCPU, config.profile, {});
  ASSERT_TRUE(p.precision.low_precision_flop_share);
  EXPECT_LT(*p.precision.low_precision_flop_share, 0.5);  // the wide layer has most of the FLOPs
  ASSERT_TRUE(p.cpu);  // what the pass got of the CPU over its profiled steps, as a timed epoch records it
  EXPECT_TRUE(p.cpu->threads == at::get_num_threads() && p.cpu->cpu_seconds > 0);
  ASSERT_FALSE(p.precision.fp32_in_autocast.empty());
  EXPECT_EQ(p.precision.fp32_in_autocast.front().name, "aten::addmm");
  EXPECT_GT(p.precision.fp32_in_autocast_seconds, 0);

  auto report = ampbench::testing::run_and_analyse(config);
  report.measured.profiles = {{PrecisionMode::bf16, p, std::nullopt, 0, std::nullopt}};
  int warned = 0;
  for (const auto& w : ampbench::report::find_warnings(report))
    warned += w.kind == ampbench::report::WarningKind::precision_not_applied && w.mode == PrecisionMode::bf16;
  EXPECT_EQ(warned, 1);
  report.summary = ampbench::report::summarize(report.context, report.measured);
  const ampbench::config::Gates gates{
      {ampbench::config::Gate::min_low_precision_flop_share, {{PrecisionMode::bf16, 0.9}}}};
  const auto verdicts = ampbench::report::check_gates(gates, report.summary);
  ASSERT_EQ(verdicts.size(), 1u);
  EXPECT_FALSE(verdicts[0].passed) << verdicts[0].message;
}

}  // namespace
