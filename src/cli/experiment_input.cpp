#include "cli/experiment_input.h"

#include <spdlog/spdlog.h>

#include "app/terminal.h"
#include "config/experiment_config.h"

namespace ampbench::cli {
namespace {

// The request's parts the command line gives, and its live progress line: only for a person at a
// terminal, never in CI logs, pipes or with --quiet.
void prepare_request(const CliOptions& options, ExperimentInput& input) {
  auto& request = input.request;
  request.exports = export_targets(options);
  request.dry_run = options.dry_run;
  request.progress = &input.progress;
  if (!options.inject_fault.empty()) request.fault = train::parse_fault_injection(options.inject_fault);
  request.on_start = [&options, &input](const std::filesystem::path&) {
    if (options.quiet || !app::interactive_terminal(stderr)) return;
    input.progress_line.emplace(input.progress);
    // The line stands in for the per-epoch log lines, which would otherwise break it up.
    if (!options.verbose) spdlog::set_level(spdlog::level::warn);
  };
}

}  // namespace

void read_experiment(const CliOptions& options, ExperimentInput& input, Overrides& overrides) {
  prepare_request(options, input);
  auto& request = input.request;
  request.config = config::read_config_file(options.config_path);
  request.config_file = options.config_path;
  input.axes = sweep::take_sweep(request.config);
  for (const auto& text : options.sweeps) input.axes.push_back(*sweep_axis(text));
  // The file's own values must hold, those a flag replaces too: a bad one would resurface without it.
  config::parse_experiment_config(request.config);
  overrides = apply_overrides(request.config, options);
  // A flag and an axis that set the same value, or one inside the other's (--modes and
  // /precision/modes/0), would leave one of them silently unused.
  const auto within = [](const std::string& inner, const std::string& outer) {
    return inner == outer || inner.starts_with(outer + "/");
  };
  for (const auto& axis : input.axes) {
    for (const auto& [path, option] : overrides) {
      if (!within(axis.key, path) && !within(path, axis.key)) continue;
      throw util::InputError(
          axis.key, axis.key == path ? "is swept and set by " + option + " too: give one"
                                     : "is swept and " + path + " is set by " + option + " too: give one");
    }
  }
}

}  // namespace ampbench::cli
