#include "cli/sweep_command.h"

#include <cstdio>
#include <iostream>

#include "app/exit_codes.h"
#include "app/stdout_export.h"
#include "cli/command.h"
#include "config/experiment_config.h"
#include "sweep/run_sweep.h"
#include "sweep/sweep_render.h"

namespace ampbench::cli {
namespace {

int print_outcome(sweep::SweepOutcome outcome) {
  if (outcome.stdout_export && !outcome.write_failure)
    outcome.write_failure = app::write_stdout_export(*outcome.stdout_export);
  // With an export on stdout, stdout carries only that export.
  std::string text = sweep::to_console(outcome.report);
  if (!outcome.write_failure) text += "sweep reports: " + outcome.folder.string() + "\n";
  std::fputs(text.c_str(), outcome.stdout_export ? stderr : stdout);
  for (const auto& run : outcome.runs) {
    for (const auto& line : app::failure_lines(run.outcome))
      std::cerr << "error: sweep point " << run.point.index << ": " << line << "\n";
  }
  if (outcome.write_failure) std::cerr << "error: " << *outcome.write_failure << "\n";
  return app::exit_code_for(outcome);
}

}  // namespace

int run_sweep(const CliOptions& options, ExperimentInput& input) {
  for (const auto& target : input.request.exports) {
    if (target.format != report::ExportFormat::bmf && target.format != report::ExportFormat::benchmark_action)
      throw UsageError(
          "--export-json, --export-csv and --export-markdown are for one run; a sweep writes sweep.json, "
          "sweep.csv and sweep.md in its folder (--export-bmf and --export-benchmark-action take its "
          "points)");
  }
  const auto shard = options.shard.empty() ? std::nullopt : shard_of(options.shard);
  auto base = input.request;
  base.exports.clear();
  auto outcome = sweep::run_sweep({base, input.axes, shard, options.sweep_order == "shuffled",
                                   app::sweep_goes_on_after, input.request.exports});
  input.progress_line.reset();
  if (!options.dry_run) return print_outcome(std::move(outcome));
  auto configs = nlohmann::json::array();
  for (const auto& run : outcome.runs) configs.push_back(config::to_json(run.outcome.config));
  std::cout << configs.dump(2) << "\n";
  return app::kExitSuccess;
}

}  // namespace ampbench::cli
