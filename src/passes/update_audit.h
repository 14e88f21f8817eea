#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <torch/torch.h>

#include "amp/precision_mode.h"
#include "data/dataset.h"
#include "models/network.h"
#include "passes/pass_records.h"
#include "train/progress.h"
#include "train/trainer_options.h"

namespace ampbench::train {

struct PassContext;
struct PlannedTrial;
struct ExperimentResult;

// The optimizer steps to sample out of `total`: kAuditedSteps of them (all when fewer), evenly spaced,
// the last one included.
std::vector<int64_t> audited_steps(int64_t total);

// Replays a trial of `mode` from `model` (fresh from the run's initial state) with the trainer's options,
// data order and seed, outside any timed region, counting lost updates at the audited steps; its steps shown
// in `progress`.
UpdateAudit audit_updates(amp::PrecisionMode mode, models::Network& model, const TrainerOptions& options,
                          const data::Dataset& dataset, const torch::Device& device,
                          Progress* progress = nullptr);

// The pass (pass_context.h): the audit of item.mode (a row with `audited`) into result.update_audits, an
// error recorded in it.
void run_update_audit(const PlannedTrial& item, PassContext& context, ExperimentResult& result);

}  // namespace ampbench::train
