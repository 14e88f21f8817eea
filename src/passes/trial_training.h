#pragma once

#include "passes/pass_context.h"
#include "train/trial_record.h"

namespace ampbench::train {

// What the progress line shows of a trial about to train: its mode, number and kind, of how many.
void publish_trial(Progress* progress, const PlannedTrial& item, int64_t of);

// Trains `record.mode` (the record has its mode and trial set) from `initial` with `trainer`: under the
// mode's math switches, in a fresh model cast to its weight format, the memory read after. Any error is the
// trial's (out of memory, or failed), marked on the record, not the run's; a diverged trial is then
// diagnosed by its replay (divergence_replay.h).
void train_trial(TrialRecord& record, const ModelState& initial, const Trainer& trainer,
                 const PassContext& context);

}  // namespace ampbench::train
