#include "cli/run_command.h"

#include <cstdio>
#include <iostream>

#include <spdlog/spdlog.h>

#include "app/exit_codes.h"
#include "app/stdout_export.h"
#include "app/terminal.h"
#include "cli/command.h"
#include "config/experiment_config.h"
#include "config/memory_estimate.h"
#include "render/console_report.h"

namespace ampbench::cli {
namespace {

int print_outcome(run::Outcome outcome) {
  if (outcome.stdout_export && !outcome.write_failure)
    outcome.write_failure = app::write_stdout_export(*outcome.stdout_export);
  // With an export on stdout, stdout carries only that export.
  FILE* summary_stream = outcome.stdout_export ? stderr : stdout;
  std::string summary = report::to_console(outcome.report, app::colour_for(summary_stream)) +
                        (outcome.write_failure ? "" : "reports: " + outcome.run_folder.string() + "\n");
  std::fputs(summary.c_str(), summary_stream);
  for (const auto& line : app::failure_lines(outcome)) std::cerr << "error: " << line << "\n";
  return app::exit_code_for(outcome);
}

}  // namespace

int run_experiment(const CliOptions& options, ExperimentInput& input) {
  if (!options.shard.empty())
    throw UsageError("--shard takes a share of a sweep's points; give --sweep or a config with one");
  if (!options.sweep_order.empty())
    throw UsageError("--sweep-order orders a sweep's points; give --sweep or a config with one");
  auto outcome = run::run_benchmark(input.request);
  input.progress_line.reset();
  // A dry run has passed every check a run makes before it starts (device, data, exports): a CI job
  // can rely on its exit code. The static memory per mode is what the options alone decide; the run
  // measures it.
  if (options.dry_run) {
    spdlog::info("static memory counted from the options (weights, gradients, optimizer state): {}",
                 config::static_memory_line(config::estimate_memory(outcome.config)));
    std::cout << config::to_json(outcome.config).dump(2) << "\n";
    return app::kExitSuccess;
  }
  return print_outcome(std::move(outcome));
}

}  // namespace ampbench::cli
