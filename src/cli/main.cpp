// The ampbench command: parses the command line, hands a request to the library's front door
// (run::run_benchmark, sweep::run_sweep, max_batch::run_max_batch, compare::run_compare or sweep::run_merge),
// prints what came back and exits with the code the outcome calls for (app/exit_codes.h); the only code that
// prints for the user.

#include <cstdio>
#include <functional>
#include <iostream>

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>
#include <CLI/CLI.hpp>

#include "app/command_line.h"
#include "app/exit_codes.h"
#include "app/progress_line.h"
#include "app/stdout_export.h"
#include "app/terminal.h"
#include "cli/cli_options.h"
#include "cli/overrides.h"
#include "compare/run_compare.h"
#include "config/experiment_config.h"
#include "max_batch/max_batch_render.h"
#include "max_batch/run_max_batch.h"
#include "measure/host_malloc.h"
#include "models/registry.h"
#include "report/console_report.h"
#include "run/benchmark.h"
#include "sweep/merge.h"
#include "sweep/run_sweep.h"
#include "sweep/sweep_render.h"
#include "util/printable.h"

namespace {

using namespace ampbench;

void configure_logging(bool quiet) {
  auto logger = spdlog::stderr_color_mt("ampbench");
  // spdlog colours any terminal; NO_COLOR must turn that off too.
  auto sink = std::static_pointer_cast<spdlog::sinks::stderr_color_sink_mt>(logger->sinks().front());
  sink->set_color_mode(app::colour_for(stderr) ? spdlog::color_mode::always : spdlog::color_mode::never);
  logger->set_pattern("%^[%H:%M:%S %l]%$ %v");
  logger->set_level(quiet ? spdlog::level::warn : spdlog::level::info);
  spdlog::set_default_logger(logger);
}

void list_models() {
  for (const auto& entry : models::model_registry()) {
    std::printf("%-10s %s\n", entry.name.c_str(), entry.description.c_str());
  }
}

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

// Runs `body`; a refusal (bad input, an output that cannot be written, a fault that cannot fire) is one
// line and exit 2.
std::optional<int> refused(const cli::Overrides& overrides, const std::function<void()>& body) {
  try {
    body();
  } catch (const util::InputError& e) {
    std::cerr << cli::config_error_line(e, overrides) << "\n";
    return app::kExitUsage;
  } catch (const util::OutputError& e) {
    std::cerr << "output error: " << e.what() << "\n";
    return app::kExitUsage;
  } catch (const run::UnreachableFault& e) {
    std::cerr << "usage error: --inject-fault: " << e.what() << "\n";
    return app::kExitUsage;
  }
  return std::nullopt;
}

// The config file with the command line's overrides written in, and its sweep: the config's keys, then
// --sweep's. A key both swept and set by an option is refused: one of them would be silently lost.
void read_config(const cli::CliOptions& options, run::Request& request, std::vector<sweep::SweepAxis>& axes,
                 cli::Overrides& overrides) {
  request.config = config::read_config_file(options.config_path);
  request.config_file = options.config_path;
  axes = sweep::take_sweep(request.config);
  for (const auto& text : options.sweeps) axes.push_back(*cli::sweep_axis(text));
  // The file's own values must hold, those a flag replaces too: a bad one would resurface without it.
  config::parse_experiment_config(request.config);
  overrides = cli::apply_overrides(request.config, options);
  for (const auto& axis : axes) {
    for (const auto& [path, option] : overrides) {
      if (axis.key == path) throw util::InputError(path, "is swept and set by " + option + " too: give one");
    }
  }
}

int print_sweep_outcome(const sweep::SweepOutcome& outcome) {
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

int run_sweep(const cli::CliOptions& options, sweep::SweepRequest sweep, const cli::Overrides& overrides,
              std::optional<app::ProgressLine>& progress_line) {
  if (!sweep.base.exports.empty()) {
    std::cerr << "usage error: --export-json, --export-csv and --export-markdown are for one run; a sweep "
                 "writes sweep.json, sweep.csv and sweep.md in its folder\n";
    return app::kExitUsage;
  }
  sweep.finished = app::sweep_goes_on_after;
  sweep::SweepOutcome outcome;
  if (auto code = refused(overrides, [&] { outcome = sweep::run_sweep(sweep); })) return *code;
  progress_line.reset();
  if (!options.dry_run) return print_sweep_outcome(outcome);
  auto configs = nlohmann::json::array();
  for (const auto& run : outcome.runs) configs.push_back(config::to_json(run.outcome.config));
  std::cout << configs.dump(2) << "\n";
  return app::kExitSuccess;
}

// Why --max-batch (or its budget) cannot go with the rest of the command line; nullopt when it can.
std::optional<std::string> max_batch_conflict(const cli::CliOptions& options, const run::Request& request,
                                              bool swept) {
  if (!options.max_batch) return "--memory-budget is the budget of --max-batch: give --max-batch too";
  if (swept || !options.shard.empty())
    return "--max-batch searches the batch size of one experiment: it takes no --sweep, --shard or config "
           "with a sweep";
  if (!request.exports.empty())
    return "--export-json, --export-csv and --export-markdown are for one run; --max-batch writes "
           "max_batch.json, max_batch.csv and max_batch.md in its folder";
  if (request.fault) return "--inject-fault is for a run or a sweep, not --max-batch";
  return std::nullopt;
}

int print_max_batch_outcome(const max_batch::MaxBatchOutcome& outcome) {
  std::string text = max_batch::to_console(outcome.report);
  if (!outcome.write_failure) text += "max-batch reports: " + outcome.folder.string() + "\n";
  std::fputs(text.c_str(), stdout);
  for (const auto& run : outcome.runs) {
    for (const auto& line : app::failure_lines(run)) std::cerr << "error: " << line << "\n";
  }
  if (outcome.write_failure) std::cerr << "error: " << *outcome.write_failure << "\n";
  return app::exit_code_for(outcome);
}

int run_max_batch(const cli::CliOptions& options, run::Request request, bool swept,
                  const cli::Overrides& overrides, std::optional<app::ProgressLine>& progress_line) {
  if (auto conflict = max_batch_conflict(options, request, swept)) {
    std::cerr << "usage error: " << *conflict << "\n";
    return app::kExitUsage;
  }
  std::optional<int64_t> budget;
  if (!options.memory_budget.empty()) budget = cli::memory_size_of(options.memory_budget);
  max_batch::MaxBatchOutcome outcome;
  if (auto code = refused(overrides, [&] {
        outcome = max_batch::run_max_batch({std::move(request), budget});
      }))
    return *code;
  progress_line.reset();
  if (!options.dry_run) return print_max_batch_outcome(outcome);
  std::cout << config::to_json(outcome.config).dump(2) << "\n";
  return app::kExitSuccess;
}

// The run (or sweep) itself; any refusal before it starts is one line and exit 2.
int run_experiment(const cli::CliOptions& options) {
  train::Progress progress;
  // A live line only for a person at a terminal: never in CI logs, pipes or with --quiet.
  std::optional<app::ProgressLine> progress_line;
  run::Request request;
  request.exports = cli::export_targets(options);
  request.dry_run = options.dry_run;
  request.progress = &progress;
  if (!options.inject_fault.empty()) request.fault = train::parse_fault_injection(options.inject_fault);
  request.on_start = [&](const std::filesystem::path&) {
    if (options.quiet || !app::interactive_terminal(stderr)) return;
    progress_line.emplace(progress);
    // The line stands in for the per-epoch log lines, which would otherwise break it up.
    if (!options.verbose) spdlog::set_level(spdlog::level::warn);
  };
  cli::Overrides overrides;
  std::vector<sweep::SweepAxis> axes;
  if (auto code = refused(overrides, [&] { read_config(options, request, axes, overrides); })) return *code;
  if (options.max_batch || !options.memory_budget.empty())
    return run_max_batch(options, std::move(request), !axes.empty(), overrides, progress_line);
  if (!axes.empty()) {
    auto shard = options.shard.empty() ? std::nullopt : cli::shard_of(options.shard);
    return run_sweep(options, {std::move(request), std::move(axes), shard, {}}, overrides, progress_line);
  }
  if (!options.shard.empty()) {
    std::cerr
        << "usage error: --shard takes a share of a sweep's points; give --sweep or a config with one\n";
    return app::kExitUsage;
  }
  run::Outcome outcome;
  if (auto code = refused(overrides, [&] { outcome = run::run_benchmark(request); })) return *code;
  progress_line.reset();
  // A dry run has passed every check a run makes before it starts (device, data, exports): a CI job
  // can rely on its exit code.
  if (options.dry_run) {
    std::cout << config::to_json(outcome.config).dump(2) << "\n";
    return app::kExitSuccess;
  }
  return print_outcome(std::move(outcome));
}

int compare_command(const compare::CompareRequest& request) {
  compare::CompareOutcome outcome;
  try {
    outcome = compare::run_compare(request);
  } catch (const util::InputError& e) {
    std::cerr << "compare error: " << util::printable(e.what(), 400) << "\n";
    return app::kExitUsage;
  } catch (const util::OutputError& e) {
    std::cerr << "output error: " << e.what() << "\n";
    return app::kExitUsage;
  }
  // With an export on stdout, stdout carries only that export.
  if (outcome.stdout_export) {
    if (const auto lost = app::write_stdout_export(*outcome.stdout_export)) {
      std::cerr << outcome.console << "error: " << *lost << "\n";
      return app::kExitRuntimeFailure;
    }
  }
  (outcome.stdout_export ? std::cerr : std::cout) << outcome.console;
  return app::exit_code_for(outcome);
}

int merge_command(const sweep::MergeRequest& request) {
  sweep::MergeOutcome outcome;
  try {
    outcome = sweep::run_merge(request);
  } catch (const util::InputError& e) {
    std::cerr << "merge error: " << util::printable(e.what(), 400) << "\n";
    return app::kExitUsage;
  } catch (const util::OutputError& e) {
    std::cerr << "output error: " << e.what() << "\n";
    return app::kExitUsage;
  }
  std::cout << sweep::to_console(outcome.report) << "sweep reports: " << outcome.folder.string() << "\n";
  return app::kExitSuccess;
}

int run_command(const cli::CliOptions& options, const compare::CompareRequest& compare, bool comparing,
                const sweep::MergeRequest& merge, bool merging) {
  if (comparing) return compare_command(compare);
  if (merging) return merge_command(merge);
  if (options.list_models) {
    list_models();
    return app::kExitSuccess;
  }
  if (options.config_path.empty()) {
    std::cerr << "usage error: --config FILE is required (see --help)\n";
    return app::kExitUsage;
  }
  return run_experiment(options);
}

}  // namespace

int main(int argc, char** argv) {
  ampbench::app::guard_standard_streams();  // before anything opens a file
  ampbench::measure::settle_host_malloc();  // before LibTorch allocates anything
  CLI::App command{"", "ampbench"};
  cli::CliOptions options;
  compare::CompareRequest compare_request;
  cli::add_options(command, options);
  auto* compare = cli::add_compare_command(command, compare_request);
  sweep::MergeRequest merge_request;
  auto* merge = cli::add_merge_command(command, merge_request);
  if (auto exit_code = app::parse_command_line(command, argc, argv)) return *exit_code;
  configure_logging(options.quiet);
  try {
    return run_command(options, compare_request, compare->parsed(), merge_request, merge->parsed());
  } catch (const c10::Error& e) {
    std::cerr << "error: " << e.what_without_backtrace() << "\n";
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
  }
  return app::kExitRuntimeFailure;
}
