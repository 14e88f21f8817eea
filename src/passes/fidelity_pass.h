#pragma once

#include <cstdint>

#include "passes/pass_context.h"

namespace ampbench::train {

// A fidelity trial into result.fidelity_trials: the mode trained from a further seed's own initial weights
// and batch order (item.seed; item.number is the seed's index), for the fidelity verdict only.
void run_fidelity_trial(const PlannedTrial& item, PassContext& context, ExperimentResult& result);

}  // namespace ampbench::train
