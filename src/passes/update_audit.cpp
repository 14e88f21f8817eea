#include "passes/update_audit.h"

#include <cmath>

#include <spdlog/spdlog.h>

#include "amp/math_settings.h"
#include "data/batch_order.h"
#include "optim/optimizer.h"
#include "passes/pass_context.h"
#include "passes/sampled_steps.h"
#include "train/stop_request.h"
#include "train/training_step.h"

namespace ampbench::train {

std::optional<double> UpdateAudit::lost_share() const {
  int64_t all_moved = 0, all_lost = 0;
  for (size_t i = 0; i < moved.size(); ++i) {
    all_moved += moved[i];
    all_lost += lost[i];
  }
  if (all_moved == 0) return std::nullopt;
  return double(all_lost) / double(all_moved);
}

std::optional<double> UpdateAudit::lost_mass() const {
  double all_wanted = 0, all_taken = 0;
  for (size_t i = 0; i < wanted.size(); ++i) {
    all_wanted += wanted[i];
    all_taken += taken[i];
  }
  if (all_wanted <= 0) return std::nullopt;
  return 1 - all_taken / all_wanted;
}

namespace {

// The first `measured` counts into the audit, as far as they are finite (a step whose weights became inf
// is a divergence's, which ends the audit there).
void read_counts(const std::vector<optim::UpdateCount>& counts, size_t measured, UpdateAudit& audit) {
  for (size_t i = 0; i < measured; ++i) {
    const auto wanted = counts[i].wanted.item<double>(), taken = counts[i].taken.item<double>();
    if (!std::isfinite(wanted) || !std::isfinite(taken)) {
      audit.diverged_at_step = audit.steps[i];
      measured = i;
      break;
    }
    audit.moved.push_back(counts[i].moved.item<int64_t>());
    audit.lost.push_back(counts[i].lost.item<int64_t>());
    audit.wanted.push_back(wanted);
    audit.taken.push_back(taken);
  }
  audit.steps.resize(measured);
}

}  // namespace

std::vector<int64_t> audited_steps(int64_t total) { return spread_steps(total, kAuditedSteps); }

UpdateAudit audit_updates(amp::PrecisionMode mode, models::Network& model, const TrainerOptions& options,
                          const data::Dataset& dataset, const torch::Device& device, Progress* progress) {
  TrainingStep step(options, mode, model, dataset, device);
  const int64_t accumulation = options.train.accumulation_steps;
  const int64_t updates_per_epoch = (step.steps_per_epoch() + accumulation - 1) / accumulation;
  UpdateAudit audit;
  audit.mode = mode;
  audit.steps = audited_steps(options.train.epochs * updates_per_epoch);
  std::vector<optim::UpdateCount> counts;
  for (size_t i = 0; i < audit.steps.size(); ++i) counts.push_back(optim::UpdateCount::zeros(device));
  model.train();
  const int64_t total = options.train.epochs * updates_per_epoch;
  int64_t update = 0;
  size_t next = 0;
  UntimedPassProgress shown(progress, static_cast<int>(mode), PassKind::update_audit,
                            audit.steps.empty() ? 0 : audit.steps.back());
  for (int64_t epoch = 1; epoch <= options.train.epochs && next < counts.size() && !audit.diverged_at_step;
       ++epoch) {
    auto order = data::epoch_order(options.seed, epoch, dataset.train_size());
    if (dataset.staged) order = order.to(device);
    step.zero_grad();
    for (int64_t i = 0; i < step.steps_per_epoch() && next < counts.size(); ++i) {
      stop_if_requested(update + 1, total);
      const auto loss = step.loss(order, i);
      // Where the trial diverged the updates are no longer a weight's: the audit stops there.
      if (!loss.isfinite().item<bool>()) {
        audit.diverged_at_step = update + 1;
        break;
      }
      const bool boundary = (i + 1) % accumulation == 0 || i + 1 == step.steps_per_epoch();
      if (boundary && update + 1 == audit.steps[next]) step.count_next_update(counts[next++]);
      if (step.backward_and_step(loss, i)) {
        shown.steps_done(++update);
        step.zero_grad();
      }
    }
  }
  read_counts(counts, next, audit);
  return audit;
}

void run_update_audit(const PlannedTrial& item, PassContext& context, ExperimentResult& result) {
  const auto mode = item.mode;
  spdlog::info("{} lost-update audit: an untimed replay of trial 1", amp::to_string(mode));
  amp::MathSettingsScope math(
      amp::settings_for(mode, context.device.type(), context.config.train.cudnn_benchmark));
  try {
    result.update_audits.push_back(audit_updates(mode, *context.fresh_model(mode), context.trainer.options(),
                                                 context.dataset, context.device, context.progress));
  } catch (const std::exception& e) {
    UpdateAudit failed;
    failed.mode = mode;
    failed.failure = error_line(e);
    spdlog::error("{} lost-update audit: {}", amp::to_string(mode), *failed.failure);
    result.update_audits.push_back(std::move(failed));
  }
}

}  // namespace ampbench::train
