#pragma once

namespace ampbench::util {

// What the exit status of ampbench's programs means, for the scripts and CI jobs that gate on it.
constexpr int kExitRuntimeFailure = 1;
constexpr int kExitUsage = 2;            // a usage or config error, told in one line; nothing written
constexpr int kExitGateFailed = 3;       // a gate or a `compare` limit failed
constexpr int kExitNothingMeasured = 4;  // no trial finished in any mode: nothing to judge
// `compare`: no regression, but a change past its limit with one trial or seed on a side, which cannot be
// told from noise
constexpr int kExitUndecided = 5;
constexpr int kExitInterrupted = 130;  // stopped by SIGINT or SIGTERM; the partial report is written

}  // namespace ampbench::util
