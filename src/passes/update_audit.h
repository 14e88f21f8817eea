#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <torch/torch.h>

#include "amp/precision_mode.h"
#include "data/dataset.h"
#include "models/network.h"
#include "train/progress.h"
#include "train/trainer_options.h"

namespace ampbench::train {

struct PassContext;
struct PlannedTrial;
struct ExperimentResult;

// A pure bf16 mode's lost updates at sampled optimizer steps (optim::UpdateCount, per step): the parameter
// elements whose exact (fp32) update would have changed the weight, how many of them kept their stored bf16
// weight (and, under Kahan summation, their compensation) unchanged, and how much of the update's magnitude
// the stored weights took.
struct UpdateAudit {
  amp::PrecisionMode mode = amp::PrecisionMode::bf16_pure;
  std::vector<int64_t> steps;         // the sampled optimizer steps, 1-based over the trial
  std::vector<int64_t> moved, lost;   // per sampled step
  std::vector<double> wanted, taken;  // per sampled step
  // The trial diverged here (its loss, or a count of its update, no longer finite): the audit stopped there,
  // its figures the sampled steps before it.
  std::optional<int64_t> diverged_at_step;
  std::optional<std::string> failure;  // the replay failed or was stopped (an error's first line): no figures

  // Lost over moved, over all sampled steps: the share of updates rounded away; empty when nothing moved.
  std::optional<double> lost_share() const;
  // 1 - taken / wanted over all sampled steps: the share of the updates' magnitude that did not reach the
  // stored weights. Round-to-nearest loses a lost update's whole magnitude; stochastic rounding loses none
  // on average (a rounding up makes good the roundings back); empty when nothing was wanted.
  std::optional<double> lost_mass() const;
};

// Optimizer steps an audit samples, spread evenly over the trial.
inline constexpr int64_t kAuditedSteps = 8;

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
