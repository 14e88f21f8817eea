// The ampbench command: parses the command line, hands a request to the library's front door
// (api::run_benchmark), prints, and maps the outcome to an exit code; the only code that prints for the
// user. The codes (util/exit_codes.h): 0 success, 1 runtime failure (a trial lost to an error included),
// 2 usage or config error (nothing written), 3 a gate or a compare limit failed (or compare's NEW lacks a
// mode or is partial), 4 no trial finished in any mode, 5 compare found a change past a limit that one
// trial or seed cannot tell from noise (and no regression), 130 stopped by SIGINT/SIGTERM (partial report
// written). When several apply, the first of: a report not written (1), a stop (130), a failed trial (1),
// nothing measured (4), a failed gate (3).

#include <cstdio>
#include <fstream>
#include <iostream>

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>
#include <CLI/CLI.hpp>

#include "api/benchmark.h"
#include "cli/cli_options.h"
#include "cli/overrides.h"
#include "cli/progress_line.h"
#include "cli/terminal.h"
#include "config/experiment_config.h"
#include "measure/host_malloc.h"
#include "models/registry.h"
#include "report/compare.h"
#include "report/console_report.h"
#include "report/run_folder.h"
#include "util/command_line.h"
#include "util/exit_codes.h"

namespace {

using namespace ampbench;

void configure_logging(bool quiet) {
  auto logger = spdlog::stderr_color_mt("ampbench");
  // spdlog colours any terminal; NO_COLOR must turn that off too.
  auto sink = std::static_pointer_cast<spdlog::sinks::stderr_color_sink_mt>(logger->sinks().front());
  sink->set_color_mode(cli::colour_for(stderr) ? spdlog::color_mode::always : spdlog::color_mode::never);
  logger->set_pattern("%^[%H:%M:%S %l]%$ %v");
  logger->set_level(quiet ? spdlog::level::warn : spdlog::level::info);
  spdlog::set_default_logger(logger);
}

void list_models() {
  for (const auto& entry : models::model_registry()) {
    std::printf("%-10s %s\n", entry.name.c_str(), entry.description.c_str());
  }
}

std::vector<report::ExportTarget> export_targets(const cli::CliOptions& options) {
  std::vector<report::ExportTarget> targets;
  if (!options.export_json.empty()) targets.push_back({report::ExportFormat::json, options.export_json});
  if (!options.export_csv.empty()) targets.push_back({report::ExportFormat::csv, options.export_csv});
  if (!options.export_markdown.empty())
    targets.push_back({report::ExportFormat::markdown, options.export_markdown});
  return targets;
}

// The summary, the errors behind a failed run, and the exit code the outcome calls for.
int finish(const api::Outcome& outcome) {
  if (outcome.stdout_export) std::cout << *outcome.stdout_export << std::flush;
  // With an export on stdout, stdout carries only that export.
  FILE* summary_stream = outcome.stdout_export ? stderr : stdout;
  std::string summary = report::to_console(outcome.report, cli::colour_for(summary_stream)) +
                        (outcome.write_failure ? "" : "reports: " + outcome.run_folder.string() + "\n");
  std::fputs(summary.c_str(), summary_stream);
  // A trial lost to an error is a failure of the run, not a finding about its mode (as oom and
  // diverged are): the other modes' figures are in the reports, and the exit code says it.
  bool failed = false;
  auto say_failed = [&failed](const std::vector<train::TrialRecord>& trials, const char* what) {
    for (const auto& trial : trials) {
      if (trial.status != train::TrialStatus::failed) continue;
      std::cerr << "error: " << amp::to_string(trial.mode) << " " << what << " " << trial.trial
                << " failed: " << trial.detail.value_or("") << "\n";
      failed = true;
    }
  };
  say_failed(outcome.report.measured.trials, "trial");
  say_failed(outcome.report.measured.fidelity_trials, "fidelity seed");
  if (outcome.write_failure) {
    std::cerr << "error: " << *outcome.write_failure << "\n";
    return util::kExitRuntimeFailure;
  }
  if (outcome.report.measured.stopped_by) return util::kExitInterrupted;
  if (failed) return util::kExitRuntimeFailure;
  // Every mode skipped, out of memory or diverged: a CI job must not read that as success.
  if (outcome.report.summary.empty()) {
    std::cerr << "error: no trial finished in any mode: nothing was measured (see the warnings)\n";
    return util::kExitNothingMeasured;
  }
  for (const auto& gate : outcome.report.gates) {
    if (!gate.passed) return util::kExitGateFailed;
  }
  return 0;
}

int run_experiment(const cli::CliOptions& options) {
  if (options.list_models) {
    list_models();
    return 0;
  }
  if (options.config_path.empty()) {
    std::cerr << "usage error: --config FILE is required (see --help)\n";
    return util::kExitUsage;
  }
  train::Progress progress;
  // A live line only for a person at a terminal: never in CI logs, pipes or with --quiet.
  std::optional<cli::ProgressLine> progress_line;
  api::Request request;
  request.exports = export_targets(options);
  request.dry_run = options.dry_run;
  request.progress = &progress;
  if (!options.inject_fault.empty()) request.fault = train::parse_fault_injection(options.inject_fault);
  request.on_start = [&](const std::filesystem::path&) {
    if (options.quiet || !cli::interactive_terminal(stderr)) return;
    progress_line.emplace(progress);
    // The line stands in for the per-epoch log lines, which would otherwise break it up.
    if (!options.verbose) spdlog::set_level(spdlog::level::warn);
  };
  cli::Overrides overrides;
  api::Outcome outcome;
  try {
    request.config = config::read_config_file(options.config_path);
    // The file's own values must hold, those a flag replaces too: a bad one would resurface without it.
    config::parse_experiment_config(request.config);
    overrides = cli::apply_overrides(request.config, options);
    outcome = api::run_benchmark(request);
  } catch (const util::InputError& e) {
    std::cerr << cli::config_error_line(e, overrides) << "\n";
    return util::kExitUsage;
  } catch (const api::OutputError& e) {
    std::cerr << "output error: " << e.what() << "\n";
    return util::kExitUsage;
  } catch (const api::UnreachableFault& e) {
    std::cerr << "usage error: --inject-fault: " << e.what() << "\n";
    return util::kExitUsage;
  }
  progress_line.reset();
  // A dry run has passed every check a run makes before it starts (device, data, exports): a CI job
  // can rely on its exit code.
  if (options.dry_run) {
    std::cout << config::to_json(outcome.config).dump(2) << "\n";
    return 0;
  }
  return finish(outcome);
}

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

int run_compare(const cli::CompareOptions& options) {
  report::Comparison comparison;
  try {
    auto load = [](const std::string& path) {
      try {
        return nlohmann::json::parse(read_text(path));
      } catch (const nlohmann::json::exception&) {
        throw util::InputError(path, "not a JSON file");
      }
    };
    report::CompareLimits limits{options.max_slowdown, options.max_memory_increase,
                                 options.max_val_loss_increase};
    comparison = report::compare_reports(load(options.base_path), load(options.new_path), limits,
                                         options.force, options.base_path, options.new_path);
  } catch (const util::InputError& e) {
    std::cerr << "compare error: " << e.what() << "\n";
    return util::kExitUsage;
  }
  if (!options.markdown_path.empty() && options.markdown_path != "-") {
    try {
      report::check_file_writable(options.markdown_path);
    } catch (const std::exception& e) {
      std::cerr << "output error: " << e.what() << "\n";
      return util::kExitUsage;
    }
  }
  std::string markdown = report::comparison_to_markdown(comparison);
  if (options.markdown_path == "-") {
    std::cout << markdown;
    std::cerr << report::comparison_to_console(comparison);
  } else {
    if (!options.markdown_path.empty()) report::write_file_atomically(options.markdown_path, markdown);
    std::cout << report::comparison_to_console(comparison);
  }
  if (comparison.regressed()) return util::kExitGateFailed;
  return comparison.unjudged() ? util::kExitUndecided : 0;
}

}  // namespace

int main(int argc, char** argv) {
  ampbench::measure::settle_host_malloc();  // before LibTorch allocates anything
  CLI::App app{"", "ampbench"};
  ampbench::cli::CliOptions options;
  ampbench::cli::CompareOptions compare_options;
  ampbench::cli::add_options(app, options);
  auto* compare = ampbench::cli::add_compare_command(app, compare_options);
  if (auto exit_code = ampbench::util::parse_command_line(app, argc, argv)) return *exit_code;
  configure_logging(options.quiet);
  try {
    return compare->parsed() ? run_compare(compare_options) : run_experiment(options);
  } catch (const c10::Error& e) {
    std::cerr << "error: " << e.what_without_backtrace() << "\n";
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
  }
  return ampbench::util::kExitRuntimeFailure;
}
