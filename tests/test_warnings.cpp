// The warnings a report carries, on hand-built reports.
#include <algorithm>

#include <gtest/gtest.h>

#include "report/summary.h"
#include "report/warnings.h"
#include "report_fixture.h"

using namespace ampbench::testing;

namespace {

// An empty report of a Release build, which the debug_build warning leaves alone.
RunReport release_report() {
  RunReport r;
  r.context.environment.build_type = "Release";
  return r;
}

}  // namespace

TEST(Warnings, FewRepeatsHighCvOutliersAndDebugBuilds) {
  auto r = fixed_report();
  auto kinds = [](const std::vector<Warning>& ws) {
    std::vector<std::string> out;
    for (const auto& w : ws) out.push_back(std::string(to_string(w.kind)));
    return out;
  };
  // fp16's trial 2 backs off six times in a row; tf32 was skipped; two trials per mode: too few for a
  // verdict; fidelity from one seed: no noise floor; fp32 varies by 1.0 vs 1.1 s: a CV above 5 %.
  EXPECT_EQ(kinds(r.warnings), (std::vector<std::string>{"scale_collapse", "skipped", "few_repeats",
                                                         "no_noise_floor", "high_cv", "high_cv"}));
  const auto few = std::find_if(r.warnings.begin(), r.warnings.end(),
                                [](const Warning& w) { return w.kind == WarningKind::few_repeats; });
  // One line for the run, every mode with the same count named in it, in summary order.
  ASSERT_NE(few, r.warnings.end());
  EXPECT_EQ(few->message, "fp32, bf16, fp16: 2 trial(s) each: too few for a speed-up verdict");
  EXPECT_FALSE(few->mode.has_value());
  r.context.environment.build_type = "Debug";
  r.measured.trials.push_back(trial(PrecisionMode::fp32, 3, 1.0, 4000, 1.0));
  r.measured.trials.push_back(trial(PrecisionMode::fp32, 4, 1.05, 4000, 1.0));
  r.measured.trials.push_back(trial(PrecisionMode::fp32, 5, 3.0, 4000, 1.0));  // an outlier
  r.summary = summarize(r.context, r.measured);
  auto warnings = find_warnings(r);
  EXPECT_EQ(warnings.front().kind, WarningKind::debug_build);
  bool outlier = false;
  for (const auto& w : warnings) {
    if (w.kind != WarningKind::outlier) continue;
    outlier |= w.message.find("trial 5, epoch 2") != std::string::npos;
    EXPECT_NE(w.message.find("far slower than the mode's median"), std::string::npos) << w.message;
  }
  EXPECT_TRUE(outlier);
}

TEST(Warnings, AModeWithFewerTrialsThanTheOthersHasAFewRepeatsLineOfItsOwn) {
  auto r = release_report();
  r.measured.data_on_device = true;
  for (int t = 1; t <= 2; ++t) {
    r.measured.trials.push_back(trial(PrecisionMode::fp32, t, 1.0, 4000, 1.0));
    r.measured.trials.push_back(trial(PrecisionMode::bf16, t, 1.0, 4000, 1.0));
  }
  r.measured.trials.push_back(
      trial(PrecisionMode::fp16, 1, 1.0, 4000, 1.0));  // as if its second trial was lost
  r.context.repeats = 2;
  r.summary = summarize(r.context, r.measured);
  std::vector<std::string> few;
  for (const auto& w : find_warnings(r)) {
    if (w.kind != WarningKind::few_repeats) continue;
    few.push_back(w.message + "; " + w.advice);
    EXPECT_EQ(w.mode.has_value(), w.message.rfind("fp16: ", 0) == 0) << w.message;
  }
  EXPECT_EQ(few,
            (std::vector<std::string>{
                "fp16: 1 of 2 trial(s): too few for a speed-up verdict, and no uncertainty interval; the "
                "others ended early (see their warnings): fix what stopped them and rerun",
                "fp32, bf16: 2 trial(s) each: too few for a speed-up verdict; set \"repeats\" to 3 or more "
                "(5 or more for a tighter interval); trials are interleaved across modes"}));
}

TEST(Warnings, AnEpochFarFasterThanTheRestIsSaidToBeFaster) {
  auto r = release_report();
  r.measured.data_on_device = true;
  for (int t = 1; t <= 5; ++t)
    r.measured.trials.push_back(trial(PrecisionMode::fp32, t, t == 3 ? 0.3 : 1.0 + 0.01 * t, 4000, 1.0));
  r.summary = summarize(r.context, r.measured);
  std::vector<std::string> outliers;
  for (const auto& w : find_warnings(r)) {
    if (w.kind == WarningKind::outlier) outliers.push_back(w.message + " / " + w.advice);
  }
  ASSERT_EQ(outliers.size(), 1u);
  EXPECT_NE(outliers[0].find("trial 3, epoch 2 took 0.300 s, far faster than the mode's median"),
            std::string::npos)
      << outliers[0];
  EXPECT_NE(outliers[0].find("the other epochs were the slow ones"), std::string::npos) << outliers[0];
}

// With near-constant epochs the MAD is near zero, and the MAD rule alone calls a 3 % wobble an outlier.
TEST(Warnings, AnOutlierMustBeFarFromTheMedianNotOnlyFarInMads) {
  auto outliers_with = [](double odd_epoch_seconds) {
    auto r = release_report();
    for (int t = 1; t <= 5; ++t) {
      const double seconds = t == 4 ? odd_epoch_seconds : 1.0 + 0.0005 * t;
      r.measured.trials.push_back(trial(PrecisionMode::fp32, t, seconds, 4000, 1.0));
    }
    r.summary = summarize(r.context, r.measured);
    std::vector<std::string> out;
    for (const auto& w : find_warnings(r))
      if (w.kind == WarningKind::outlier) out.push_back(w.message);
    return out;
  };
  EXPECT_TRUE(outliers_with(1.03).empty());
  const auto doubled = outliers_with(2.0);
  ASSERT_EQ(doubled.size(), 1u);
  EXPECT_NE(doubled[0].find("trial 4, epoch 2 took 2.000 s, far slower"), std::string::npos) << doubled[0];
}

TEST(Warnings, AScaleCollapseIsALongRunOfBackOffsOrAScaleBelowOne) {
  auto warnings_for = [](LossScaleTrace trace) {
    auto r = release_report();
    TrialRecord t;
    t.mode = PrecisionMode::fp16;
    t.status = TrialStatus::interrupted;  // no summary needed: the trace alone decides
    t.loss_scale_trace = trace;
    r.measured.trials.push_back(t);
    int collapses = 0;
    for (const auto& w : find_warnings(r)) collapses += w.kind == WarningKind::scale_collapse;
    return collapses;
  };
  EXPECT_EQ(warnings_for({{1, 2, 3, 4}, {{4, 4096.0}}, 4096.0, 4}), 0);  // the usual start: finding its level
  EXPECT_EQ(warnings_for({{1, 2, 3, 4, 5}, {{5, 2048.0}}, 2048.0, kScaleCollapseRun}), 1);
  EXPECT_EQ(warnings_for({{9}, {{9, 0.5}}, 0.5, 1}), 1);  // under the floor
}

TEST(Warnings, AModeCaveatIsFlaggedWithItsKindAndAdvice) {
  using Caveat = ampbench::amp::ModeCaveat;
  auto r = release_report();
  r.measured.mode_caveats[PrecisionMode::fp16] = {Caveat::Kind::no_tensor_cores, "no tensor cores",
                                                  "use a newer GPU"};
  r.measured.mode_caveats[PrecisionMode::bf16] = {Caveat::Kind::no_16bit_arithmetic, "no bf16 arithmetic",
                                                  "use AMX"};
  auto warnings = find_warnings(r);
  ASSERT_EQ(warnings.size(), 2u);
  EXPECT_EQ(warnings[0].kind, WarningKind::no_tensor_cores);
  EXPECT_EQ(warnings[0].mode, PrecisionMode::fp16);
  EXPECT_EQ(warnings[0].message, "fp16: no tensor cores");
  EXPECT_EQ(warnings[0].advice, "use a newer GPU");
  EXPECT_EQ(warnings[1].kind, WarningKind::no_16bit_arithmetic);
  EXPECT_EQ(warnings[1].mode, PrecisionMode::bf16);
}

namespace {

std::vector<Warning> of_kind(const std::vector<Warning>& warnings, WarningKind kind) {
  std::vector<Warning> out;
  for (const auto& w : warnings)
    if (w.kind == kind) out.push_back(w);
  return out;
}

// fp32 and bf16, three trials each; bf16's epochs take `bf16_seconds` against fp32's 1 s.
RunReport two_modes(double bf16_seconds) {
  auto r = release_report();
  r.context.repeats = 3;
  for (int t = 1; t <= 3; ++t) {
    r.measured.trials.push_back(trial(PrecisionMode::fp32, t, 1.0, 4000, 1.0));
    r.measured.trials.push_back(trial(PrecisionMode::bf16, t, bf16_seconds * (1 + 0.01 * t), 4000, 1.0));
  }
  r.summary = summarize(r.context, r.measured);
  return r;
}

}  // namespace

// A planted slow mode, whatever the CPU: bf16 at a tenth of fp32's speed is named with its figure and
// interval, and told to profile; at 0.9x nothing is said.
TEST(Warnings, AModeFarSlowerThanFp32IsNamedWithItsFigure) {
  const auto slow = of_kind(find_warnings(two_modes(10.0)), WarningKind::slow_mode);
  ASSERT_EQ(slow.size(), 1u);
  EXPECT_EQ(slow[0].mode, PrecisionMode::bf16);
  EXPECT_NE(slow[0].message.find("bf16: ran at 0.098x fp32's samples/s (95% interval ["), std::string::npos)
      << slow[0].message;
  EXPECT_NE(slow[0].advice.find("--profile"), std::string::npos) << slow[0].advice;
  EXPECT_TRUE(of_kind(find_warnings(two_modes(1.1)), WarningKind::slow_mode).empty());
}

// With a profiled pass, the slow mode's warning names the op that costs it most beyond fp32's.
TEST(Warnings, ASlowModeWithAProfileNamesTheOpThatTookTheExtraTime) {
  auto r = two_modes(10.0);
  auto slow = planted_profile(8, 0, true);
  slow.top_ops.push_back({"aten::_slow_conv2d_backward",
                          ampbench::profile::Phase::backward,
                          ampbench::profile::OpClass::matmul_conv,
                          {"c10::BFloat16"},
                          {{16, 3, 3, 3}},
                          1,
                          0.09,
                          1e6});
  slow.step_seconds += 0.09;
  r.measured.profiles = {
      {PrecisionMode::fp32, planted_profile(8, 0, false), std::nullopt, 0.25, std::nullopt},
      {PrecisionMode::bf16, slow, std::nullopt, 0.5, std::nullopt}};
  const auto warnings = of_kind(find_warnings(r), WarningKind::slow_mode);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].message.find("aten::_slow_conv2d_backward (backward) alone took 0.09 s of it against "
                                     "fp32's 0 s"),
            std::string::npos)
      << warnings[0].message;
}

// An op that runs in the slow mode as it does in fp32 (the optimizer's fp32 step on master weights; an op of
// the same dtypes and shapes) is not blamed, however much longer it took there: a 16-bit op is, and with
// none slower the warning says no 16-bit kernel explains it.
TEST(Warnings, ASlowModeIsNotBlamedOnWorkFp32DoesToo) {
  using ampbench::profile::OpClass;
  using ampbench::profile::Phase;
  auto r = two_modes(10.0);
  auto slow = planted_profile(8, 0, true);
  slow.top_ops[2].seconds = 0.3;  // the fp32 AdamW step, 300x fp32's pass under contention
  const ampbench::profile::OpTime relu{
      "aten::relu", Phase::forward, OpClass::other, {"float"}, {{64, 32}}, 1, 0.2, 0};
  slow.top_ops.push_back(relu);  // the same fp32 op, slower
  auto fp32 = planted_profile(8, 0, false);
  fp32.top_ops.push_back(relu);
  fp32.top_ops.back().seconds = 1e-4;
  r.measured.profiles = {{PrecisionMode::fp32, fp32, std::nullopt, 0.25, std::nullopt},
                         {PrecisionMode::bf16, slow, std::nullopt, 0.5, std::nullopt}};
  auto warnings = of_kind(find_warnings(r), WarningKind::slow_mode);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(warnings[0].message.find("aten::_fused_adamw_"), std::string::npos) << warnings[0].message;
  EXPECT_EQ(warnings[0].message.find("aten::relu"), std::string::npos) << warnings[0].message;
  EXPECT_NE(warnings[0].message.find("no 16-bit kernel explains it"), std::string::npos)
      << warnings[0].message;
  EXPECT_NE(warnings[0].advice.find("profile_contention"), std::string::npos) << warnings[0].advice;

  // A bf16 op slower than fp32's is named, though the AdamW step took longer still.
  r.measured.profiles[1].profile->top_ops[0].seconds = 0.05;  // bf16's aten::mm
  warnings = of_kind(find_warnings(r), WarningKind::slow_mode);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].message.find("aten::mm (backward) alone took 0.05 s"), std::string::npos)
      << warnings[0].message;
  // An op of the optimizer phase that fp32 never ran is the mode's own work, and is named.
  r.measured.profiles[1].profile->top_ops.push_back({"aten::_amp_foreach_non_finite_check_and_unscale_",
                                                     Phase::optimizer,
                                                     OpClass::optimizer,
                                                     {},
                                                     {},
                                                     1,
                                                     0.1,
                                                     0});
  warnings = of_kind(find_warnings(r), WarningKind::slow_mode);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].message.find("aten::_amp_foreach_non_finite_check_and_unscale_ (optimizer) alone"),
            std::string::npos)
      << warnings[0].message;
}

// A profiled pass that waited for a CPU says so, with what was measured; a quiet one says nothing.
TEST(Warnings, AProfiledPassThatWaitedForACpuSaysSo) {
  auto r = two_modes(1.0);
  auto bf16 = planted_profile(8, 0, true);
  bf16.cpu = ampbench::measure::CpuUsage{0.5, 2, 40, 0.9, 0.5, 0.45};
  auto fp32 = planted_profile(8, 0, false);
  fp32.cpu = ampbench::measure::CpuUsage{1.9, 2, 3, 0.01, 0.95, 0.005};
  r.measured.profiles = {{PrecisionMode::fp32, fp32, std::nullopt, 0.25, std::nullopt},
                         {PrecisionMode::bf16, bf16, std::nullopt, 0.5, std::nullopt}};
  const auto warnings = of_kind(find_warnings(r), WarningKind::profile_contention);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(warnings[0].mode, PrecisionMode::bf16);
  EXPECT_NE(warnings[0].message.find("they waited for a CPU 45% of it"), std::string::npos)
      << warnings[0].message;
  // A pass of a few milliseconds whose threads waited 5 ms of them: the scheduler's latency, not contention.
  r.measured.profiles[1].profile->cpu = ampbench::measure::CpuUsage{0.005, 2, 1, 0.005, 0.5, 0.5};
  EXPECT_TRUE(of_kind(find_warnings(r), WarningKind::profile_contention).empty());
}

// Epochs whose threads waited for a CPU are named with what was measured; a quiet run has no warning,
// and an outlying epoch says whether it was kept waiting.
TEST(Warnings, ContentionIsToldFromTheRunQueueWaitMeasured) {
  auto r = two_modes(1.0);
  r.measured.trials.push_back(trial(PrecisionMode::fp32, 4, 1.02, 4000, 1.0));
  r.measured.trials.push_back(trial(PrecisionMode::fp32, 5, 0.98, 4000, 1.0));
  r.summary = summarize(r.context, r.measured);
  r.context.environment.load_average = 2.5;
  r.context.environment.cpu_cores = 2;
  EXPECT_TRUE(of_kind(find_warnings(r), WarningKind::contention).empty());
  auto& busy = r.measured.trials[2].epochs[1];  // fp32 trial 2, epoch 2
  busy.seconds = 3.0;
  busy.cpu = {1.56, 2, 812, 2.88, 0.26, 0.48};
  r.summary = summarize(r.context, r.measured);
  const auto warnings = find_warnings(r);
  const auto contention = of_kind(warnings, WarningKind::contention);
  ASSERT_EQ(contention.size(), 1u);
  EXPECT_EQ(
      contention[0].message,
      "fp32: in 1 of 5 compared epochs its threads waited for a CPU more than 10% of the time; worst, "
      "trial 2 epoch 2: it got 26% of the CPU time its 2 thread(s) could use, and they waited for a CPU "
      "48% of it (812 involuntary context switches); the load average was 2.50 on 2 CPUs as the run "
      "started");
  const auto outlier = of_kind(warnings, WarningKind::outlier);
  ASSERT_EQ(outlier.size(), 1u);
  EXPECT_NE(outlier[0].message.find("it got 26% of the CPU time"), std::string::npos) << outlier[0].message;
  EXPECT_NE(outlier[0].advice.find("another process took the CPU"), std::string::npos) << outlier[0].advice;
}

// fp16 that skipped every optimizer step never trained: a warning says so, and fidelity cannot pass.
TEST(Warnings, Fp16ThatNeverSteppedIsWarnedAndFailsFidelity) {
  auto r = release_report();
  r.context.fidelity_tolerance = 0.05;
  r.measured.trials.push_back(trial(PrecisionMode::fp32, 1, 1.0, 4000, 1.0));
  auto fp16 = trial(PrecisionMode::fp16, 1, 1.0, 4000, 1.0);  // the same loss as fp32's
  fp16.loss_scale_trace = LossScaleTrace{{1, 2, 3, 4, 5, 6, 7, 8, 9}, {}, 1e38, 9, 9};
  r.measured.trials.push_back(fp16);
  const auto analysed = analyse(r.context, r.measured);
  const auto never = of_kind(analysed.warnings, WarningKind::never_stepped);
  ASSERT_EQ(never.size(), 1u);
  EXPECT_NE(never[0].message.find("fp16 trial 1: all 9 optimizer steps were skipped"), std::string::npos);
  const auto& summary = analysed.summary.at(1);
  ASSERT_EQ(summary.mode, PrecisionMode::fp16);
  EXPECT_EQ(summary.fidelity.seeds_never_stepped, 1);
  EXPECT_EQ(summary.fidelity.verdict, FidelityVerdict::fail);
  // One step taken is training, however little: judged on the loss as usual.
  r.measured.trials[1].loss_scale_trace->skipped_steps.pop_back();
  EXPECT_EQ(analyse(r.context, r.measured).summary.at(1).fidelity.verdict, FidelityVerdict::pass);
}

TEST(Warnings, AnOptimizerFallbackIsWarnedOncePerModeNamingTheKernel) {
  auto r = release_report();
  for (int t = 1; t <= 2; ++t) {
    ampbench::train::TrialRecord record;
    record.mode = PrecisionMode::bf16_pure;
    record.trial = t;
    record.optimizer_fallback = "fused SGD";
    r.measured.trials.push_back(record);
  }
  ampbench::train::TrialRecord unaffected;
  unaffected.mode = PrecisionMode::fp32;
  r.measured.trials.push_back(unaffected);
  const auto fallbacks = of_kind(find_warnings(r), WarningKind::optimizer_fallback);
  ASSERT_EQ(fallbacks.size(), 1u);
  EXPECT_EQ(fallbacks[0].mode, PrecisionMode::bf16_pure);
  EXPECT_NE(fallbacks[0].message.find("fused SGD"), std::string::npos) << fallbacks[0].message;
}

TEST(Warnings, ANumericsPassThatFoundNoModeToObserveSaysSo) {
  auto r = release_report();
  r.context.numerics_requested = true;
  ampbench::train::TrialRecord fp32;
  fp32.mode = PrecisionMode::fp32;
  r.measured.trials.push_back(fp32);
  EXPECT_EQ(of_kind(find_warnings(r), WarningKind::numerics_unmeasured).size(), 1u);
  r.measured.numerics.emplace_back();  // a mode it observed
  EXPECT_TRUE(of_kind(find_warnings(r), WarningKind::numerics_unmeasured).empty());
  r.measured.numerics.clear();
  r.context.numerics_requested = false;
  EXPECT_TRUE(of_kind(find_warnings(r), WarningKind::numerics_unmeasured).empty());
}

TEST(Warnings, AOneEpochRunSaysItsSpeedFiguresComeFromEpochOne) {
  auto r = release_report();
  ampbench::train::TrialRecord trial;
  trial.mode = PrecisionMode::fp32;
  trial.warmup_steps_excluded = 2;
  trial.epochs.resize(1);
  r.measured.trials.push_back(trial);
  const auto warned = of_kind(find_warnings(r), WarningKind::first_epoch_only);
  ASSERT_EQ(warned.size(), 1u);
  EXPECT_NE(warned[0].message.find("after 2 warm-up step(s)"), std::string::npos) << warned[0].message;
  r.measured.trials[0].epochs.resize(2);  // epoch 1 is then left out
  EXPECT_TRUE(of_kind(find_warnings(r), WarningKind::first_epoch_only).empty());
}

// A profiled pass a stop ended says where, as a stop and not a failure, with or without figures; its
// figures are still read (here a bf16 pass whose matrix work ran in fp32).
TEST(Warnings, AStoppedProfiledPassIsWarnedAsAStopAndItsFiguresStillRead) {
  auto r = two_modes(1.0);
  r.measured.profiles = {
      {PrecisionMode::fp32, planted_profile(8, 0, false), std::nullopt, 0.25, std::nullopt},
      {PrecisionMode::bf16, std::nullopt, std::nullopt, 0.5,
       "stopped by SIGTERM after 0 of 4 "
       "profiled steps"}};
  auto warnings = find_warnings(r);
  EXPECT_TRUE(of_kind(warnings, WarningKind::profile_failed).empty());
  auto stopped = of_kind(warnings, WarningKind::interrupted);
  ASSERT_EQ(stopped.size(), 1u);
  EXPECT_EQ(stopped[0].message, "bf16: its profiled pass was stopped by SIGTERM after 0 of 4 profiled steps");
  r.measured.profiles[1].profile = planted_profile(8, 0, false);
  r.measured.profiles[1].stopped = "stopped by SIGTERM after 2 of 4 profiled steps";
  warnings = find_warnings(r);
  EXPECT_EQ(of_kind(warnings, WarningKind::interrupted).size(), 1u);
  EXPECT_EQ(of_kind(warnings, WarningKind::precision_not_applied).size(), 1u);
}

TEST(Warnings, AFailedOrStoppedDivergenceReplayIsWarnedAsThePassItIs) {
  auto r = release_report();
  ampbench::train::TrialRecord trial;
  trial.mode = PrecisionMode::fp16;
  trial.status = ampbench::train::TrialStatus::diverged;
  trial.divergence.emplace();
  trial.divergence->failure = "out of memory";
  r.measured.trials.push_back(trial);
  const auto failed = of_kind(find_warnings(r), WarningKind::pass_failed);
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_EQ(failed[0].message, "fp16: its divergence replay failed: out of memory");
  r.measured.trials[0].divergence->failure = "stopped by SIGTERM before step 3 of 12";
  EXPECT_TRUE(of_kind(find_warnings(r), WarningKind::pass_failed).empty());
  EXPECT_EQ(of_kind(find_warnings(r), WarningKind::interrupted).size(), 1u);
}
