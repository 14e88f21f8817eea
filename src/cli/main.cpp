// The ampbench command: the only code that prints for the user and picks exit codes.
//   0 success, 1 runtime failure (a trial lost to an error included), 2 usage or config error (nothing
//   written), 3 a gate or a compare limit failed (or compare's NEW lacks a mode or is partial), 130 stopped
//   by SIGINT/SIGTERM (partial report written). When several apply, the first of: a report not written
//   (1), a stop (130), a failed trial (1), a failed gate (3).

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <iostream>

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>
#include <CLI/CLI.hpp>

#include "cli/cli_options.h"
#include "cli/exit_codes.h"
#include "cli/exports.h"
#include "cli/parse_command_line.h"
#include "cli/progress_line.h"
#include "config/experiment_config.h"
#include "measure/device.h"
#include "measure/host_malloc.h"
#include "models/registry.h"
#include "report/compare.h"
#include "report/console_report.h"
#include "report/run_folder.h"
#include "train/experiment.h"
#include "train/fault_injection.h"
#include "train/stop_request.h"

namespace {

using ampbench::cli::kExitGateFailed;
using ampbench::cli::kExitInterrupted;
using ampbench::cli::kExitRuntimeFailure;
using ampbench::cli::kExitUsage;

// The config values the command line set: each one's JSON pointer and the option that set it.
using Overrides = std::vector<std::pair<std::string, std::string>>;

// Sets doc/<keys...> = value, creating objects on the way, and records it. When something other than an
// object is in the way, it leaves the document alone: the config parser then reports that path.
void set_override(nlohmann::json& doc, const std::vector<std::string>& keys, const nlohmann::json& value,
                  const std::string& option, Overrides& overrides) {
  nlohmann::json* node = &doc;
  for (size_t i = 0; i + 1 < keys.size(); ++i) {
    if (!node->is_object()) return;
    node = &(*node)[keys[i]];
    if (node->is_null()) *node = nlohmann::json::object();
  }
  if (!node->is_object()) return;
  (*node)[keys.back()] = value;
  std::string path;
  for (const auto& key : keys) path += "/" + key;
  overrides.emplace_back(path, option);
}

Overrides apply_overrides(nlohmann::json& doc, const ampbench::cli::CliOptions& options) {
  Overrides set;
  if (!options.modes.empty()) set_override(doc, {"precision", "modes"}, options.modes, "--modes", set);
  if (options.epochs) set_override(doc, {"train", "epochs"}, *options.epochs, "--epochs", set);
  if (options.repeats) set_override(doc, {"repeats"}, *options.repeats, "--repeats", set);
  if (options.device) set_override(doc, {"device"}, *options.device, "--device", set);
  if (options.out_dir) set_override(doc, {"output", "dir"}, *options.out_dir, "--out", set);
  if (options.seed) set_override(doc, {"seed"}, *options.seed, "--seed", set);
  if (options.peak_tflops) {
    set_override(doc, {"peak_tflops"}, ampbench::cli::peak_tflops_json(*options.peak_tflops).value(),
                 "--peak-tflops", set);
  }
  return set;
}

// One line naming where the problem is, and the option behind it when the command line set that value.
void print_config_error(const ampbench::config::ConfigError& error, const Overrides& overrides) {
  const auto& where = error.where();
  std::string from;
  for (const auto& [path, option] : overrides) {
    if (where == path || where.rfind(path + "/", 0) == 0) from = " (from " + option + ")";
  }
  std::cerr << "config error: " << (where.empty() ? "" : where + from + ": ") << error.problem() << "\n";
}

// A person at a terminal: where a live progress line makes sense.
bool interactive_terminal(FILE* stream) {
  const char* term = std::getenv("TERM");
  return isatty(fileno(stream)) && term && std::string(term) != "dumb";
}

// Colour only for a person at a terminal that wants it (https://no-color.org).
bool colour_for(FILE* stream) { return interactive_terminal(stream) && std::getenv("NO_COLOR") == nullptr; }

void configure_logging(bool quiet) {
  auto logger = spdlog::stderr_color_mt("ampbench");
  // spdlog colours any terminal; NO_COLOR must turn that off too.
  auto sink = std::static_pointer_cast<spdlog::sinks::stderr_color_sink_mt>(logger->sinks().front());
  sink->set_color_mode(colour_for(stderr) ? spdlog::color_mode::always : spdlog::color_mode::never);
  logger->set_pattern("%^[%H:%M:%S %l]%$ %v");
  logger->set_level(quiet ? spdlog::level::warn : spdlog::level::info);
  spdlog::set_default_logger(logger);
}

void list_models() {
  for (const auto& entry : ampbench::models::model_registry()) {
    std::printf("%-10s %s\n", entry.name.c_str(), entry.description.c_str());
  }
}

void write_run_folder(const std::filesystem::path& folder, const ampbench::report::RunReport& report) {
  using ampbench::cli::ExportFormat;
  using ampbench::cli::render;
  ampbench::report::write_file_atomically(folder / "report.json", render(ExportFormat::json, report));
  ampbench::report::write_file_atomically(folder / "report.csv", render(ExportFormat::csv, report));
  ampbench::report::write_file_atomically(folder / "report.md", render(ExportFormat::markdown, report));
}

int run_experiment(const ampbench::cli::CliOptions& options) {
  using namespace ampbench;
  if (options.list_models) {
    list_models();
    return 0;
  }
  if (options.config_path.empty()) {
    std::cerr << "usage error: --config FILE is required (see --help)\n";
    return kExitUsage;
  }

  // Everything the user gave is checked before anything is written.
  config::ExperimentConfig config;
  torch::Device device = torch::kCPU;
  Overrides overrides;
  try {
    auto doc = config::read_config_file(options.config_path);
    overrides = apply_overrides(doc, options);
    config = config::parse_experiment_config(doc);
    device = measure::resolve_device(config.device);
  } catch (const config::ConfigError& e) {
    print_config_error(e, overrides);
    return kExitUsage;
  }
  std::optional<train::FaultInjection> fault;
  if (!options.inject_fault.empty()) fault = train::parse_fault_injection(options.inject_fault);
  std::optional<train::Experiment> experiment;
  try {
    experiment.emplace(config, device, fault);  // reads the data: a bad data file is a config error too
  } catch (const config::ConfigError& e) {
    print_config_error(e, overrides);
    return kExitUsage;
  }
  if (fault) {
    if (auto problem = train::why_fault_misses(*fault, experiment->runnable_modes(),
                                               experiment->steps_per_trial(), config.repeats)) {
      std::cerr << "usage error: --inject-fault: " << *problem << "\n";
      return kExitUsage;
    }
  }

  cli::Exports exports;
  if (!options.export_json.empty()) exports.add(cli::ExportFormat::json, options.export_json);
  if (!options.export_csv.empty()) exports.add(cli::ExportFormat::csv, options.export_csv);
  if (!options.export_markdown.empty()) exports.add(cli::ExportFormat::markdown, options.export_markdown);
  try {
    exports.check_writable();
    if (options.dry_run) report::check_run_folder_creatable(config.output_dir);
  } catch (const std::exception& e) {
    std::cerr << "output error: " << e.what() << "\n";
    return kExitUsage;
  }
  // A dry run has passed every check a run makes before it starts (device, data, exports): a CI job
  // can rely on its exit code.
  if (options.dry_run) {
    std::cout << config::to_json(config).dump(2) << "\n";
    return 0;
  }
  std::filesystem::path folder;
  try {
    folder = report::create_run_folder(config.output_dir, config.name);
  } catch (const std::exception& e) {
    std::cerr << "output error: " << e.what() << "\n";
    return kExitUsage;
  }
  spdlog::info("writing to {}", folder.string());

  // From here on, SIGINT/SIGTERM stop at the next step and the report is written, marked partial.
  train::StopRequest::install_signal_handlers();
  train::Progress progress;
  // A live line only for a person at a terminal: never in CI logs, pipes or with --quiet.
  std::optional<cli::ProgressLine> progress_line;
  if (!options.quiet && interactive_terminal(stderr)) {
    progress_line.emplace(progress);
    // The line stands in for the per-epoch log lines, which would otherwise break it up.
    if (!options.verbose) spdlog::set_level(spdlog::level::warn);
  }
  // A report that cannot be written (a full disk, a deleted folder) does not stop the run: the
  // measurements go on and end in the summary below, and the run exits 1 saying why.
  std::optional<std::string> write_failure;
  auto write_reports = [&](const report::RunReport& report, bool final) {
    std::optional<std::string> failure;
    auto attempt = [&failure](const std::function<void()>& write) {
      try {
        write();
      } catch (const std::exception& e) {
        if (!failure) failure = e.what();
      }
    };
    attempt([&] { write_run_folder(folder, report); });
    attempt([&] { exports.write(report, final); });
    if (failure && !write_failure) {
      spdlog::warn("{}; the run goes on, and its summary is printed at the end", *failure);
    }
    write_failure = failure;
  };
  auto result =
      experiment->run([&](const report::RunReport& so_far) { write_reports(so_far, false); }, &progress);
  progress_line.reset();
  write_reports(result, /*final=*/true);

  // With an export on stdout, stdout carries only that export.
  FILE* summary_stream = exports.uses_stdout() ? stderr : stdout;
  std::string summary = report::to_console(result, colour_for(summary_stream)) +
                        (write_failure ? "" : "reports: " + folder.string() + "\n");
  std::fputs(summary.c_str(), summary_stream);
  // A trial lost to an error is a failure of the run, not a finding about its mode (as oom and
  // diverged are): the other modes' figures are in the reports, and the exit code says it.
  bool failed = false;
  for (const auto& trial : result.trials) {
    if (trial.status != "failed") continue;
    std::cerr << "error: " << ampbench::amp::to_string(trial.mode) << " trial " << trial.trial
              << " failed: " << trial.detail.value_or("") << "\n";
    failed = true;
  }
  if (write_failure) {
    std::cerr << "error: " << *write_failure << "\n";
    return kExitRuntimeFailure;
  }
  if (result.stopped_by) return kExitInterrupted;
  if (failed) return kExitRuntimeFailure;
  for (const auto& gate : result.gates) {
    if (!gate.passed) return kExitGateFailed;
  }
  return 0;
}

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

int run_compare(const ampbench::cli::CompareOptions& options) {
  using namespace ampbench;
  report::Comparison comparison;
  try {
    auto load = [](const std::string& path) {
      try {
        return nlohmann::json::parse(read_text(path));
      } catch (const nlohmann::json::exception&) {
        throw config::ConfigError(path, "not a JSON file");
      }
    };
    report::CompareLimits limits{options.max_slowdown, options.max_memory_increase,
                                 options.max_val_loss_increase};
    comparison = report::compare_reports(load(options.base_path), load(options.new_path), limits,
                                         options.force, options.base_path, options.new_path);
  } catch (const config::ConfigError& e) {
    std::cerr << "compare error: " << e.what() << "\n";
    return kExitUsage;
  }
  if (!options.markdown_path.empty() && options.markdown_path != "-") {
    try {
      report::check_file_writable(options.markdown_path);
    } catch (const std::exception& e) {
      std::cerr << "output error: " << e.what() << "\n";
      return kExitUsage;
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
  return comparison.regressed() ? kExitGateFailed : 0;
}

}  // namespace

int main(int argc, char** argv) {
  ampbench::measure::settle_host_malloc();  // before LibTorch allocates anything
  CLI::App app{"", "ampbench"};
  ampbench::cli::CliOptions options;
  ampbench::cli::CompareOptions compare_options;
  ampbench::cli::add_options(app, options);
  auto* compare = ampbench::cli::add_compare_command(app, compare_options);
  if (auto exit_code = ampbench::cli::parse_command_line(app, argc, argv)) return *exit_code;
  configure_logging(options.quiet);
  try {
    return compare->parsed() ? run_compare(compare_options) : run_experiment(options);
  } catch (const c10::Error& e) {
    std::cerr << "error: " << e.what_without_backtrace() << "\n";
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
  }
  return kExitRuntimeFailure;
}
