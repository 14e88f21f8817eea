#include "app/exit_codes.h"

#include <algorithm>

#include "compare/run_compare.h"
#include "max_batch/run_max_batch.h"
#include "run/benchmark.h"
#include "sweep/run_sweep.h"
#include "train/stop_request.h"

namespace ampbench::app {
namespace {

bool any_failed(const std::vector<train::TrialRecord>& trials) {
  return std::any_of(trials.begin(), trials.end(),
                     [](const train::TrialRecord& t) { return t.status == train::TrialStatus::failed; });
}

void add_failed(const std::vector<train::TrialRecord>& trials, const char* what,
                std::vector<std::string>& lines) {
  for (const auto& trial : trials) {
    if (trial.status != train::TrialStatus::failed) continue;
    lines.push_back(std::string(amp::to_string(trial.mode)) + " " + what + " " + std::to_string(trial.trial) +
                    " failed: " + trial.detail.value_or(""));
  }
}

bool any_profile_failed(const std::vector<profile::ProfileRecord>& profiles) {
  return std::any_of(profiles.begin(), profiles.end(),
                     [](const profile::ProfileRecord& p) { return p.failure.has_value(); });
}

// An untimed pass's failure; a stopped one is the stop's (exit 130), not a failure.
bool failed(const std::optional<std::string>& failure) {
  return failure && !failure->starts_with(train::kStoppedBy);
}

bool replay_failed(const std::vector<train::TrialRecord>& trials) {
  return std::any_of(trials.begin(), trials.end(),
                     [](const auto& t) { return t.divergence && failed(t.divergence->failure); });
}

bool any_pass_failed(const train::ExperimentResult& measured) {
  return replay_failed(measured.trials) || replay_failed(measured.fidelity_trials) ||
         std::any_of(measured.update_audits.begin(), measured.update_audits.end(),
                     [](const auto& a) { return failed(a.failure); }) ||
         std::any_of(measured.numerics.begin(), measured.numerics.end(),
                     [](const auto& n) { return failed(n.failure); });
}

}  // namespace

int exit_code_for(const run::Outcome& outcome) {
  const auto& measured = outcome.report.measured;
  if (outcome.write_failure) return kExitRuntimeFailure;
  if (measured.stopped_by) return kExitInterrupted;
  if (measured.setup_failure) return kExitRuntimeFailure;
  // A trial lost to an error is a failure of the run, not a finding about its mode (as oom and diverged
  // are): the other modes' figures are in the reports, and the exit code says it.
  // So is a profiled pass lost to an error: its figures are missing from the reports.
  if (any_failed(measured.trials) || any_failed(measured.fidelity_trials) ||
      any_profile_failed(measured.profiles) || any_pass_failed(measured))
    return kExitRuntimeFailure;
  // Every mode skipped, out of memory or diverged: a CI job must not read that as success.
  if (outcome.report.summary.empty()) return kExitNothingMeasured;
  const auto& gates = outcome.report.gates;
  if (std::any_of(gates.begin(), gates.end(), [](const report::GateResult& g) { return !g.passed; }))
    return kExitGateFailed;
  return kExitSuccess;
}

bool sweep_goes_on_after(const run::Outcome& outcome) {
  const int code = exit_code_for(outcome);
  return code != kExitInterrupted && code != kExitRuntimeFailure;
}

int exit_code_for(const sweep::SweepOutcome& outcome) {
  if (outcome.write_failure) return kExitRuntimeFailure;
  std::vector<int> codes;
  for (const auto& run : outcome.runs) codes.push_back(exit_code_for(run.outcome));
  for (int code : {kExitInterrupted, kExitRuntimeFailure, kExitNothingMeasured, kExitGateFailed}) {
    if (std::find(codes.begin(), codes.end(), code) != codes.end()) return code;
  }
  return kExitSuccess;
}

int exit_code_for(const max_batch::MaxBatchOutcome& outcome) {
  if (outcome.write_failure) return kExitRuntimeFailure;
  if (outcome.stopped_by) return kExitInterrupted;
  std::vector<int> codes;
  for (const auto& run : outcome.runs) codes.push_back(exit_code_for(run));
  for (int code : {kExitInterrupted, kExitRuntimeFailure, kExitNothingMeasured, kExitGateFailed}) {
    if (std::find(codes.begin(), codes.end(), code) != codes.end()) return code;
  }
  const auto& modes = outcome.report.modes;
  if (std::any_of(modes.begin(), modes.end(), [](const auto& m) { return m.not_measured.has_value(); }))
    return kExitRuntimeFailure;
  if (std::none_of(modes.begin(), modes.end(), [](const auto& m) { return m.search.largest > 0; }))
    return kExitNothingMeasured;
  return kExitSuccess;
}

int exit_code_for(const compare::CompareOutcome& outcome) {
  switch (outcome.comparison.verdict()) {
    case compare::ChangeVerdict::regression:
      return kExitGateFailed;
    case compare::ChangeVerdict::unjudged:
      return kExitUndecided;
    case compare::ChangeVerdict::ok:
    case compare::ChangeVerdict::within_noise:
    case compare::ChangeVerdict::emulated:
      break;
  }
  return kExitSuccess;
}

std::vector<std::string> failure_lines(const run::Outcome& outcome) {
  std::vector<std::string> lines;
  if (const auto& failure = outcome.report.measured.setup_failure) lines.push_back(*failure);
  add_failed(outcome.report.measured.trials, "trial", lines);
  add_failed(outcome.report.measured.fidelity_trials, "fidelity seed", lines);
  for (const auto& p : outcome.report.measured.profiles) {
    if (p.failure)
      lines.push_back(std::string(amp::to_string(p.mode)) + " profiled pass failed: " + *p.failure);
  }
  for (const auto* trials : {&outcome.report.measured.trials, &outcome.report.measured.fidelity_trials}) {
    for (const auto& t : *trials) {
      if (t.divergence && failed(t.divergence->failure))
        lines.push_back(std::string(amp::to_string(t.mode)) + " trial " + std::to_string(t.trial) +
                        ": divergence replay failed: " + *t.divergence->failure);
    }
  }
  for (const auto& a : outcome.report.measured.update_audits) {
    if (failed(a.failure))
      lines.push_back(std::string(amp::to_string(a.mode)) + " lost-update audit failed: " + *a.failure);
  }
  for (const auto& n : outcome.report.measured.numerics) {
    if (failed(n.failure))
      lines.push_back(std::string(amp::to_string(n.mode)) + " numerics pass failed: " + *n.failure);
  }
  if (outcome.write_failure) lines.push_back(*outcome.write_failure);
  const bool stopped = outcome.report.measured.stopped_by.has_value();
  if (lines.empty() && !stopped && outcome.report.summary.empty())
    lines.push_back("no trial finished in any mode: nothing was measured (see the warnings)");
  return lines;
}

}  // namespace ampbench::app
