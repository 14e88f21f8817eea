#pragma once

#include "passes/pass_context.h"

namespace ampbench::train {

// A timed trial of a mode from the run's seed and initial state (item.number is its round) into
// result.trials; or, for a mode that cannot run here (item.kind skipped), the one record that says why.
void run_timed_trial(const PlannedTrial& item, PassContext& context, ExperimentResult& result);

}  // namespace ampbench::train
