#pragma once

#include <string>
#include <vector>

namespace ampbench::run {
struct Outcome;
}  // namespace ampbench::run
namespace ampbench::compare {
struct CompareOutcome;
}  // namespace ampbench::compare
namespace ampbench::sweep {
struct SweepOutcome;
}  // namespace ampbench::sweep
namespace ampbench::max_batch {
struct MaxBatchOutcome;
}  // namespace ampbench::max_batch

namespace ampbench::app {

// What the exit status of ampbench's programs means, for the scripts and CI jobs that gate on it.
constexpr int kExitSuccess = 0;
constexpr int kExitRuntimeFailure = 1;   // a runtime failure, a trial lost to an error included
constexpr int kExitUsage = 2;            // a usage or config error, told in one line; nothing written
constexpr int kExitGateFailed = 3;       // a gate or a `compare` limit failed
constexpr int kExitNothingMeasured = 4;  // no trial finished in any mode: nothing to judge
// `compare`: no regression, but a change past its limit with one trial or seed on a side, which cannot be
// told from noise
constexpr int kExitUndecided = 5;
constexpr int kExitInterrupted = 130;  // stopped by a signal (SIGINT, ...); the partial report is written

// The exit code a run's outcome calls for. When several apply, the first of: a report not written (1), a
// stop (130), a set-up that failed or a failed trial or fidelity seed (1), nothing measured (4), a failed
// gate (3); else 0.
int exit_code_for(const run::Outcome& outcome);
// Whether a run's outcome lets a sweep go on to its next point: not stopped, not failed (exit 130 or 1).
bool sweep_goes_on_after(const run::Outcome& outcome);
// A sweep: 1 when its own report was not written, else the first of its points' codes in the order
// above (130, 1, 4, 3), else 0.
int exit_code_for(const sweep::SweepOutcome& outcome);
// --max-batch: 1 when its own report was not written, 130 when a signal stopped it, else the first of its
// runs' codes (130, 1, 4, 3); else 1 when a mode that fits was not measured at its largest batch, 4 when no
// mode fits even a batch of 1; else 0.
int exit_code_for(const max_batch::MaxBatchOutcome& outcome);
// compare: 3 for a regression, 5 for a change that one sample cannot judge (and no regression), else 0.
int exit_code_for(const compare::CompareOutcome& outcome);

// The lines that say why a run failed: each trial and fidelity seed lost to an error, the report write
// that failed, or that nothing was measured; empty for a run that did not fail.
std::vector<std::string> failure_lines(const run::Outcome& outcome);

}  // namespace ampbench::app
