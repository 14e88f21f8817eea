#pragma once

#include "cli/cli_options.h"
#include "cli/experiment_input.h"

namespace ampbench::cli {

// A sweep (--sweep, or a config with one; --shard K/N for a share of its points): a run per point
// (sweep::run_sweep), the sweep's console table and each point's failures on stderr, or with --dry-run
// every point's resolved config; returns the exit code. Throws UsageError for a report export, which is
// one run's, and what the front door throws.
int run_sweep(const CliOptions& options, ExperimentInput& input);

}  // namespace ampbench::cli
