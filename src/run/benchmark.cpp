#include "run/benchmark.h"

#include <algorithm>

#include <spdlog/spdlog.h>

#include "config/resolve.h"
#include "measure/device.h"
#include "measure/environment.h"
#include "measure/memory_budget.h"
#include "passes/experiment.h"
#include "report/analysis.h"
#include "train/stop_request.h"
#include "util/output_files.h"

namespace ampbench::run {

namespace {

void check_fault(const std::optional<train::FaultInjection>& fault, const train::Experiment& experiment,
                 int64_t repeats) {
  if (!fault) return;
  if (auto problem =
          train::why_fault_misses(*fault, experiment.runnable_modes(), experiment.steps_per_trial(), repeats))
    throw UnreachableFault(*problem);
}

// The exports, and for a dry run the run folder it would make (a real run makes it, which says why not).
void check_outputs(const report::ReportWriter& writer, const config::ExperimentConfig& config,
                   const std::filesystem::path& config_file, bool dry_run) {
  std::vector<util::NamedPath> inputs;
  if (!config_file.empty()) inputs.push_back({"the config file", config_file});
  try {
    writer.check_exports(inputs);
    if (dry_run) util::check_run_folder_creatable(config.output_dir);
  } catch (const std::exception& e) {
    throw util::OutputError(e.what());
  }
}

std::filesystem::path make_run_folder(const config::ExperimentConfig& config) {
  try {
    return util::create_run_folder(config.output_dir, config.name);
  } catch (const std::exception& e) {
    throw util::OutputError(e.what());
  }
}

// Analyses and writes what was measured so far, after each trial and at the end.
class Recorder {
 public:
  Recorder(report::RunContext context, const report::ReportWriter& writer)
      : context_(std::move(context)), writer_(writer) {}

  report::RunReport record(const train::ExperimentResult& measured) {
    auto report = report::analyse(context_, measured);
    const auto failure = writer_.write(report);
    if (failure && !failure_)
      spdlog::warn("{}; the run goes on, and its summary is printed at the end", *failure);
    failure_ = failure;
    return report;
  }
  const std::optional<std::string>& failure() const { return failure_; }

 private:
  report::RunContext context_;
  const report::ReportWriter& writer_;
  std::optional<std::string> failure_;
};

}  // namespace

Outcome run_benchmark(const Request& request) {
  Outcome outcome;
  outcome.config = config::parse_experiment_config(request.config);
  // For the whole run, data making included; the environment records what was in force.
  if (const auto& threads = outcome.config.train.threads) at::set_num_threads(static_cast<int>(*threads));
  const auto device = config::resolve_device(outcome.config);
  measure::make_current(device);
  if (outcome.config.device == "auto" && device.is_cpu()) {
    if (auto cuda = measure::cuda_runtime_version())
      spdlog::warn("this build has CUDA {}, but no CUDA GPU is visible: device auto runs on the CPU", *cuda);
  }
  train::Experiment experiment(outcome.config, device, request.fault);  // reads the data
  // A fidelity trial's number is its seed's index: a fault's TRIAL may name one up to fidelity_seeds.
  check_fault(request.fault, experiment,
              std::max(outcome.config.repeats, outcome.config.precision.fidelity_seeds));
  report::ReportWriter writer(request.exports);
  check_outputs(writer, outcome.config, request.config_file, request.dry_run);
  if (request.dry_run) return outcome;

  outcome.run_folder = request.run_folder ? *request.run_folder : make_run_folder(outcome.config);
  writer.set_run_folder(outcome.run_folder);
  experiment.set_trace_folder(outcome.run_folder);
  spdlog::info("writing to {}", outcome.run_folder.string());
  // From here on, a stop signal (SIGINT, ...) stops at the next step and the report is written, partial.
  train::StopRequest::install_signal_handlers();
  if (request.on_start) request.on_start(outcome.run_folder);
  const auto& config = outcome.config;
  Recorder recorder(report::make_run_context(
                        config, measure::capture_environment(device, config::to_json(config), config.seed)),
                    writer);
  std::optional<measure::MemoryBudgetScope> budget;
  if (request.memory_budget) budget.emplace(device, *request.memory_budget);
  const auto measured = experiment.run(
      [&](const train::ExperimentResult& so_far) { recorder.record(so_far); }, request.progress);
  outcome.report = recorder.record(measured);
  outcome.write_failure = recorder.failure();
  outcome.stdout_export = writer.stdout_export(outcome.report);
  return outcome;
}

}  // namespace ampbench::run
