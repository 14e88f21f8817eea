#include "cli/experiment_command.h"

#include <cstdio>

#include "app/exit_codes.h"
#include "cli/experiment_input.h"
#include "cli/max_batch_command.h"
#include "cli/run_command.h"
#include "cli/sweep_command.h"
#include "models/registry.h"

namespace ampbench::cli {
namespace {

void list_models() {
  for (const auto& entry : models::model_registry()) {
    std::printf("%-10s %s\n", entry.name.c_str(), entry.description.c_str());
  }
}

}  // namespace

int ExperimentCommand::run() {
  if (options_.list_models) {
    list_models();
    return app::kExitSuccess;
  }
  if (options_.config_path.empty()) throw UsageError("--config FILE is required (see --help)");
  ExperimentInput input;
  read_experiment(options_, input, overrides_);
  if (options_.max_batch || !options_.memory_budget.empty()) return run_max_batch(options_, input);
  if (!input.axes.empty()) return run_sweep(options_, input);
  return run_experiment(options_, input);
}

}  // namespace ampbench::cli
