#include "cli/experiment_command.h"

#include <cstdio>

#include "amp/precision_mode.h"
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

// The recipe table: a line per mode, or each row as report.json's `modes` records it.
void list_modes(const std::string& format) {
  if (format == "json") {
    nlohmann::json rows = nlohmann::json::array();
    for (const auto& row : amp::precision_recipes()) rows.push_back(amp::recipe_json(row));
    std::printf("%s\n", rows.dump(2).c_str());
    return;
  }
  for (const auto& row : amp::precision_recipes()) {
    std::printf("%-16s %s%s\n", std::string(row.name).c_str(), std::string(row.summary).c_str(),
                row.in_default_set ? " (default)" : "");
  }
}

}  // namespace

int ExperimentCommand::run() {
  if (options_.list_models) {
    list_models();
    return app::kExitSuccess;
  }
  if (options_.list_modes) {
    list_modes(*options_.list_modes);
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
