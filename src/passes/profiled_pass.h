#pragma once

#include <filesystem>

#include <torch/torch.h>

#include "amp/precision_mode.h"
#include "config/experiment_config.h"
#include "data/dataset.h"
#include "models/network.h"
#include "passes/pass_context.h"
#include "profile/mode_profile.h"
#include "profile/profile_record.h"
#include "train/trainer_options.h"

namespace ampbench::train {

// One mode's profiled pass: profile.warmup_steps untimed steps, then profile.steps steps under the
// profiler, each step and its forward, backward and optimizer phases marked; the batches are the first
// epoch's, in the trials' order (continuing into the next epochs' when there are more steps). It runs
// after the timed trials, on a model the caller made from the same initial weights, and counts in none of
// their figures. Writes the Chrome trace to `trace_path` (none when empty), shows its steps in `progress`.
// c10::Error propagates.
profile::ModeProfile profile_mode(amp::PrecisionMode mode, models::Network& model,
                                  const TrainerOptions& options, const data::Dataset& dataset,
                                  const torch::Device& device, const config::ProfileConfig& profile,
                                  const std::filesystem::path& trace_path, Progress* progress = nullptr);

// The record of a pass that profiled `profiled` (profile_mode's figures). A stop request ends the pass at a
// step boundary: where it ended short of `planned_steps`, the record says where (ProfileRecord::stopped).
profile::ProfileRecord profile_record(amp::PrecisionMode mode, profile::ModeProfile profiled,
                                      int64_t planned_steps);

// The pass (pass_context.h): item.mode's profiled pass into result.profiles, its trace into the context's
// trace folder, an error recorded in it.
void run_profiled_pass(const PlannedTrial& item, PassContext& context, ExperimentResult& result);

// The pass's steps as recorded, before they are summed up (what profile_mode summarises).
profile::CapturedEvents capture_profiled_steps(amp::PrecisionMode mode, models::Network& model,
                                               const TrainerOptions& options, const data::Dataset& dataset,
                                               const torch::Device& device,
                                               const config::ProfileConfig& profile,
                                               const std::filesystem::path& trace_path, bool& trace_written,
                                               Progress* progress = nullptr);

}  // namespace ampbench::train
