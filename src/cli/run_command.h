#pragma once

#include "cli/cli_options.h"
#include "cli/experiment_input.h"

namespace ampbench::cli {

// `ampbench --config FILE`: one run of the experiment (run::run_benchmark), its console summary and the
// failures on stderr, or with --dry-run the resolved config; returns the exit code. Throws UsageError for
// --shard without a sweep, and what the front door throws.
int run_experiment(const CliOptions& options, ExperimentInput& input);

}  // namespace ampbench::cli
