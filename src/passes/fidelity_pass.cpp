#include "passes/fidelity_pass.h"

#include <spdlog/spdlog.h>

#include "passes/trial_training.h"

namespace ampbench::train {
namespace {

// The initial state and trainer of the seed being trained, made when its first trial runs: the plan
// trains every mode of one seed before the next seed.
const FidelitySeed& seed_state(uint64_t seed, PassContext& context) {
  auto& current = context.fidelity_seed;
  if (!current || current->trainer.options().seed != seed) {
    auto options = context.trainer.options();
    options.seed = seed;
    torch::manual_seed(seed);
    auto initial = ModelState::capture(*context.config.model.spec->build());
    current.emplace(
        FidelitySeed{std::move(initial), Trainer(options, context.dataset, context.device, context.fault)});
  }
  return *current;
}

}  // namespace

void run_fidelity_trial(const PlannedTrial& item, PassContext& context, ExperimentResult& result) {
  const auto& state = seed_state(item.seed, context);
  const auto& config = context.config;
  TrialRecord record;
  record.mode = item.mode;
  record.trial = item.number;
  spdlog::info("{} fidelity seed {}/{} (seed {}): training {} for {} epoch(s)", amp::to_string(item.mode),
               item.number, config.precision.fidelity_seeds, item.seed, config.model.type,
               config.train.epochs);
  publish_trial(context.progress, item, config.precision.fidelity_seeds);
  train_trial(record, state.initial, state.trainer, context);
  result.fidelity_trials.push_back(std::move(record));
}

}  // namespace ampbench::train
