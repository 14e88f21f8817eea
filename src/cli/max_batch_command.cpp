#include "cli/max_batch_command.h"

#include <cstdio>
#include <iostream>

#include "app/exit_codes.h"
#include "cli/command.h"
#include "config/experiment_config.h"
#include "max_batch/max_batch_render.h"
#include "max_batch/run_max_batch.h"

namespace ampbench::cli {
namespace {

// Why --max-batch (or its budget) cannot go with the rest of the command line; nullopt when it can.
std::optional<std::string> conflict(const CliOptions& options, const ExperimentInput& input) {
  if (!options.max_batch) return "--memory-budget is the budget of --max-batch: give --max-batch too";
  if (!input.axes.empty() || !options.shard.empty() || !options.sweep_order.empty())
    return "--max-batch searches the batch size of one experiment: it takes no --sweep, --shard, "
           "--sweep-order or config with a sweep";
  if (!input.request.exports.empty())
    return "--export-json, --export-csv and --export-markdown are for one run, --export-bmf and "
           "--export-benchmark-action for a run or a sweep; --max-batch writes max_batch.json, max_batch.csv "
           "and max_batch.md in its folder";
  if (input.request.fault) return "--inject-fault is for a run or a sweep, not --max-batch";
  return std::nullopt;
}

int print_outcome(const max_batch::MaxBatchOutcome& outcome) {
  std::string text = max_batch::to_console(outcome.report);
  if (!outcome.write_failure) text += "max-batch reports: " + outcome.folder.string() + "\n";
  std::fputs(text.c_str(), stdout);
  for (const auto& run : outcome.runs) {
    for (const auto& line : app::failure_lines(run)) std::cerr << "error: " << line << "\n";
  }
  if (outcome.write_failure) std::cerr << "error: " << *outcome.write_failure << "\n";
  return app::exit_code_for(outcome);
}

}  // namespace

int run_max_batch(const CliOptions& options, ExperimentInput& input) {
  if (auto why = conflict(options, input)) throw UsageError(*why);
  std::optional<int64_t> budget;
  if (!options.memory_budget.empty()) budget = memory_size_of(options.memory_budget);
  auto outcome = max_batch::run_max_batch({input.request, budget});
  input.progress_line.reset();
  if (!options.dry_run) return print_outcome(outcome);
  std::cout << config::to_json(outcome.config).dump(2) << "\n";
  return app::kExitSuccess;
}

}  // namespace ampbench::cli
