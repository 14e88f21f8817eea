#pragma once

#include "cli/cli_options.h"
#include "cli/experiment_input.h"

namespace ampbench::cli {

// --max-batch [--memory-budget SIZE]: each mode's largest batch within the budget and its run there
// (max_batch::run_max_batch), the search's console table and the runs' failures on stderr, or with
// --dry-run the resolved config; returns the exit code. Throws UsageError for what cannot go with it (a
// budget without --max-batch, a sweep or shard, an export, a planted fault), and what the front door throws.
int run_max_batch(const CliOptions& options, ExperimentInput& input);

}  // namespace ampbench::cli
