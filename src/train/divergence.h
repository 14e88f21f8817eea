#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "numerics/op_facts.h"

namespace ampbench::train {

struct TrialRecord;

// Why a trial is diagnosed, and what its replay must look at.
struct DivergenceTarget {
  std::string trigger;                      // what the trial saw, in words
  std::optional<int64_t> loss_step;         // its training loss was first non-finite at this step
  std::optional<int64_t> validation_epoch;  // or its validation loss after this epoch
  std::vector<int64_t> skipped_steps;       // fp16: skipped steps whose overflow to trace
};

// More skipped steps in a row than this, and fp16's loss scale is collapsing rather than finding its level.
inline constexpr int64_t kFewSkippedSteps = 3;

// What a trial asks the replay to diagnose: a non-finite training or validation loss, or (fp16) more than
// kFewSkippedSteps optimizer steps skipped in a row, whose first skipped step and the first of its longest
// run are traced. nullopt: nothing to diagnose. `accumulation` is the steps per optimizer step.
std::optional<DivergenceTarget> divergence_target(const TrialRecord& record, int64_t steps_per_epoch,
                                                  int64_t accumulation);

// One step the replay ran under the observer.
struct ObservedStep {
  int64_t step = 0;         // 1-based over the trial
  std::string event;        // what made it a step to observe ("non-finite gradients", "skipped step", ...)
  bool seen_again = false;  // under the observer the replay saw the event again at this step
  std::optional<numerics::NonFiniteOp> first_op;  // the first op whose output held inf or NaN
};

// A diverged trial's diagnosis: the trial replayed from its initial state and batch order, outside any timed
// region, up to the first step at which anything became non-finite, that step (and fp16's traced skipped
// steps) run under the observer.
struct DivergenceDiagnosis {
  std::string trigger;
  // The replay's loss became non-finite at the trial's step (or, for a validation loss, after its epoch).
  bool reproduced = false;
  std::string replay_saw;  // what the replay saw, in words ("the loss became non-finite at step 57")
  std::vector<ObservedStep> steps;
  std::optional<std::string> failure;  // the replay itself failed (an error's first line)
};

}  // namespace ampbench::train
