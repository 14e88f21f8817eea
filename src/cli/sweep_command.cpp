#include "cli/sweep_command.h"

#include <cstdio>
#include <iostream>

#include "app/exit_codes.h"
#include "cli/command.h"
#include "config/experiment_config.h"
#include "sweep/run_sweep.h"
#include "sweep/sweep_render.h"

namespace ampbench::cli {
namespace {

int print_outcome(const sweep::SweepOutcome& outcome) {
  std::string text = sweep::to_console(outcome.report);
  if (!outcome.write_failure) text += "sweep reports: " + outcome.folder.string() + "\n";
  std::fputs(text.c_str(), stdout);
  for (const auto& run : outcome.runs) {
    for (const auto& line : app::failure_lines(run.outcome))
      std::cerr << "error: sweep point " << run.point.index << ": " << line << "\n";
  }
  if (outcome.write_failure) std::cerr << "error: " << *outcome.write_failure << "\n";
  return app::exit_code_for(outcome);
}

}  // namespace

int run_sweep(const CliOptions& options, ExperimentInput& input) {
  if (!input.request.exports.empty())
    throw UsageError(
        "--export-json, --export-csv and --export-markdown are for one run; a sweep writes sweep.json, "
        "sweep.csv and sweep.md in its folder");
  const auto shard = options.shard.empty() ? std::nullopt : shard_of(options.shard);
  auto outcome = sweep::run_sweep(
      {input.request, input.axes, shard, options.sweep_order == "shuffled", app::sweep_goes_on_after});
  input.progress_line.reset();
  if (!options.dry_run) return print_outcome(outcome);
  auto configs = nlohmann::json::array();
  for (const auto& run : outcome.runs) configs.push_back(config::to_json(run.outcome.config));
  std::cout << configs.dump(2) << "\n";
  return app::kExitSuccess;
}

}  // namespace ampbench::cli
