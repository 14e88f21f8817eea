#include "passes/timed_pass.h"

#include <spdlog/spdlog.h>

#include "passes/trial_training.h"

namespace ampbench::train {

void run_timed_trial(const PlannedTrial& item, PassContext& context, ExperimentResult& result) {
  TrialRecord record;
  record.mode = item.mode;
  record.trial = item.number;
  if (item.kind == PlannedKind::skipped) {
    record.status = TrialStatus::skipped;
    record.detail = context.skipped.at(item.mode);
    result.trials.push_back(std::move(record));
    return;
  }
  const auto& config = context.config;
  spdlog::info("{} trial {}/{}: training {} for {} epoch(s) on {}", amp::to_string(item.mode), item.number,
               config.repeats, config.model.type, config.train.epochs, context.device.str());
  publish_trial(context.progress, item, config.repeats);
  train_trial(record, context.initial, context.trainer, context);
  result.trials.push_back(std::move(record));
}

}  // namespace ampbench::train
