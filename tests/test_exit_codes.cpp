// Which exit code an outcome calls for, and in which order the causes count.
#include <gtest/gtest.h>

#include "app/exit_codes.h"
#include "max_batch/run_max_batch.h"
#include "run/benchmark.h"

namespace ampbench {
namespace {

using train::TrialStatus;

train::TrialRecord trial_with_status(TrialStatus status) {
  train::TrialRecord t;
  t.status = status;
  t.detail = "why";
  return t;
}

// A run whose every cause of a non-zero exit can be switched on alone.
struct Causes {
  bool write_failed = false, stopped = false, trial_failed = false, fidelity_failed = false,
       nothing_measured = false, gate_failed = false, profile_failed = false;
};

run::Outcome outcome_with(const Causes& c) {
  run::Outcome o;
  if (c.write_failed) o.write_failure = "cannot write report.json";
  if (c.stopped) o.report.measured.stopped_by = "SIGINT";
  if (c.trial_failed) o.report.measured.trials.push_back(trial_with_status(TrialStatus::failed));
  if (c.fidelity_failed) o.report.measured.fidelity_trials.push_back(trial_with_status(TrialStatus::failed));
  if (c.profile_failed)
    o.report.measured.profiles.push_back({profile::ProfileRecord{.mode = amp::PrecisionMode::fp32,
                                                                 .profile = {},
                                                                 .failure = "injected error",
                                                                 .wall_seconds = 0,
                                                                 .stopped = {}}});
  if (!c.nothing_measured) o.report.summary.emplace_back();
  report::GateResult gate;
  gate.passed = !c.gate_failed;
  o.report.gates.push_back(gate);
  return o;
}

}  // namespace

TEST(ExitCodes, EachCauseAloneHasItsCode) {
  EXPECT_EQ(app::exit_code_for(outcome_with({})), 0);
  EXPECT_EQ(app::exit_code_for(outcome_with({.write_failed = true})), 1);
  EXPECT_EQ(app::exit_code_for(outcome_with({.stopped = true})), 130);
  EXPECT_EQ(app::exit_code_for(outcome_with({.trial_failed = true})), 1);
  EXPECT_EQ(app::exit_code_for(outcome_with({.fidelity_failed = true})), 1);
  EXPECT_EQ(app::exit_code_for(outcome_with({.nothing_measured = true})), 4);
  EXPECT_EQ(app::exit_code_for(outcome_with({.gate_failed = true})), 3);
  EXPECT_EQ(app::exit_code_for(outcome_with({.profile_failed = true})), 1);  // a profiled pass lost
}

TEST(ExitCodes, TheFirstCauseInPrecedenceDecides) {
  // A report not written, a stop, a failed trial, nothing measured, a failed gate: in that order.
  const Causes all{true, true, true, true, true, true};
  EXPECT_EQ(app::exit_code_for(outcome_with(all)), 1);
  EXPECT_EQ(app::exit_code_for(outcome_with({false, true, true, true, true, true})), 130);
  EXPECT_EQ(app::exit_code_for(outcome_with({false, false, true, false, true, true})), 1);
  EXPECT_EQ(app::exit_code_for(outcome_with({false, false, false, false, true, true})), 4);
}

TEST(ExitCodes, FailureLinesSayWhatFailed) {
  auto o = outcome_with({.trial_failed = true, .fidelity_failed = true});
  EXPECT_EQ(app::failure_lines(o),
            (std::vector<std::string>{"fp32 trial 1 failed: why", "fp32 fidelity seed 1 failed: why"}));
  EXPECT_EQ(
      app::failure_lines(outcome_with({.nothing_measured = true})),
      (std::vector<std::string>{"no trial finished in any mode: nothing was measured (see the warnings)"}));
  EXPECT_TRUE(app::failure_lines(outcome_with({.stopped = true, .nothing_measured = true})).empty());
  EXPECT_TRUE(app::failure_lines(outcome_with({})).empty());
  EXPECT_EQ(app::failure_lines(outcome_with({.profile_failed = true})),
            (std::vector<std::string>{"fp32 profiled pass failed: injected error"}));
}

// A model whose initial state could not be made ran nothing: a runtime failure (1), not "nothing
// measured" (4), and the failure line says why.
TEST(ExitCodes, ASetUpThatFailedExitsOneAndSaysWhy) {
  auto o = outcome_with({.nothing_measured = true});
  o.report.measured.setup_failure = "the model's initial state could not be made: out of host memory";
  EXPECT_EQ(app::exit_code_for(o), 1);
  EXPECT_EQ(app::failure_lines(o),
            std::vector<std::string>{"the model's initial state could not be made: out of host memory"});
  o.report.measured.stopped_by = "SIGINT";
  EXPECT_EQ(app::exit_code_for(o), 130);
}

TEST(ExitCodes, MaxBatchSaysWhenAModeThatFitsWasNotMeasuredOrNoModeFits) {
  auto mode = [](int64_t largest, bool measured) {
    max_batch::MaxBatchMode m;
    m.search.largest = largest;
    if (!measured) m.not_measured = "why";
    return m;
  };
  max_batch::MaxBatchOutcome o;
  o.report.modes = {mode(37, true), mode(40, true)};
  EXPECT_EQ(app::exit_code_for(o), 0);
  o.report.modes = {mode(37, true), mode(0, true)};  // a mode that fits nothing is an answer
  EXPECT_EQ(app::exit_code_for(o), 0);
  o.report.modes = {mode(37, true), mode(40, false)};
  EXPECT_EQ(app::exit_code_for(o), 1);
  o.report.modes = {mode(0, true), mode(0, true)};
  EXPECT_EQ(app::exit_code_for(o), 4);
  o.runs.push_back(outcome_with({.gate_failed = true}));
  EXPECT_EQ(app::exit_code_for(o), 3);  // a run's own code comes first
  o.stopped_by = "SIGINT";
  EXPECT_EQ(app::exit_code_for(o), 130);
  o.write_failure = "cannot write max_batch.json";
  EXPECT_EQ(app::exit_code_for(o), 1);
}

// A lost-update audit or numerics pass lost to an error is the run's failure (exit 1, a line saying so); one
// that a signal stopped is the stop's, as is a profiled pass a signal stopped.
TEST(ExitCodes, AFailedUntimedPassExitsOneAndAStoppedOneIsTheStops) {
  auto failed = outcome_with({});
  train::NumericsRecord numerics;
  numerics.mode = amp::PrecisionMode::bf16;
  numerics.failure = "out of memory";
  failed.report.measured.numerics.push_back(numerics);
  EXPECT_EQ(app::exit_code_for(failed), 1);
  EXPECT_EQ(app::failure_lines(failed),
            (std::vector<std::string>{"bf16 numerics pass failed: out of memory"}));
  auto stopped = outcome_with({.stopped = true});
  train::UpdateAudit audit;
  audit.failure = "stopped by SIGTERM before step 3 of 8";
  stopped.report.measured.update_audits.push_back(audit);
  stopped.report.measured.profiles.push_back({.mode = amp::PrecisionMode::bf16,
                                              .profile = {},
                                              .failure = {},
                                              .wall_seconds = 0,
                                              .stopped = "stopped by SIGTERM after 0 of 4 profiled steps"});
  EXPECT_EQ(app::exit_code_for(stopped), 130);
  EXPECT_TRUE(app::failure_lines(stopped).empty());
}

// A divergence replay that failed leaves its trial's diagnosis missing: a runtime failure (1) with its line;
// one that a stop ended is the stop's (130), and not a failure line.
TEST(ExitCodes, AFailedDivergenceReplayExitsOneAndAStoppedOneIsTheStops) {
  auto o = outcome_with({});
  auto diverged = trial_with_status(TrialStatus::diverged);
  diverged.divergence.emplace();
  diverged.divergence->failure = "out of memory";
  o.report.measured.trials.push_back(diverged);
  EXPECT_EQ(app::exit_code_for(o), 1);
  EXPECT_EQ(app::failure_lines(o),
            std::vector<std::string>{"fp32 trial 1: divergence replay failed: out of memory"});
  o.report.measured.trials.back().divergence->failure = "stopped by SIGTERM before step 3 of 12";
  o.report.measured.stopped_by = "SIGTERM";
  EXPECT_EQ(app::exit_code_for(o), 130);
  EXPECT_TRUE(app::failure_lines(o).empty());
}

}  // namespace ampbench
