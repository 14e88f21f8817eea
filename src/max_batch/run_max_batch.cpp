#include "max_batch/run_max_batch.h"

#include <algorithm>
#include <map>

#include <spdlog/spdlog.h>

#include "config/memory_estimate.h"
#include "config/resolve.h"
#include "max_batch/max_batch_render.h"
#include "measure/host_memory.h"
#include "measure/memory_budget.h"
#include "passes/experiment.h"
#include "train/stop_request.h"
#include "util/output_files.h"

namespace ampbench::max_batch {

namespace {

// The budget in bytes, refused where it cannot be had or cannot hold the run before it trains.
int64_t checked_budget(const torch::Device& device, std::optional<int64_t> requested) {
  const auto budget = measure::budget_bytes(device, requested);
  if (!budget)
    throw util::InputError("--max-batch",
                           "on the CPU needs --memory-budget SIZE (e.g. 8GiB): the host's "
                           "memory is no budget a process can run into safely");
  return *budget;
}

// A budget below every mode's weights, gradients and optimizer state, counted from the options, holds no
// batch: refused before anything is made, by a dry run as by the run.
void check_budget_holds_static_memory(const config::ExperimentConfig& config, int64_t budget) {
  const auto estimate = config::estimate_memory(config);
  if (estimate.static_bytes.empty()) return;
  double least = estimate.static_bytes.begin()->second;
  for (const auto& [mode, bytes] : estimate.static_bytes) least = std::min(least, bytes);
  if (double(budget) >= least) return;
  throw util::InputError("--memory-budget",
                         measure::human_bytes(double(budget)) +
                             " cannot hold the run before it trains: every mode's weights, "
                             "gradients and optimizer state take " +
                             measure::human_bytes(least) + " or more");
}

// Each runnable mode's search, in the config's order; the first try draws the initial state, which a
// budget too small for it refuses.
std::vector<MaxBatchMode> search_modes(train::Experiment& experiment, int64_t limit, int64_t budget) {
  std::vector<MaxBatchMode> modes;
  for (auto mode : experiment.runnable_modes()) {
    if (train::StopRequest::requested()) break;
    MaxBatchMode searched;
    searched.mode = mode;
    std::map<int64_t, int64_t> peaks;  // of the batches that fit
    auto fits = [&](int64_t batch) {
      train::BatchFit fit;
      try {
        fit = experiment.fit_batch(mode, batch);
      } catch (const std::runtime_error& e) {
        throw util::InputError("--memory-budget", measure::human_bytes(double(budget)) +
                                                      " cannot hold the run before it trains: " + e.what());
      }
      spdlog::info("{} batch {}: {} (peak {} of {})", amp::to_string(mode), batch,
                   fit.fits ? "fits" : "out of memory", measure::human_bytes(double(fit.peak_bytes)),
                   measure::human_bytes(double(budget)));
      if (fit.fits) peaks[batch] = fit.peak_bytes;
      return fit.fits;
    };
    searched.search = search_largest_batch(limit, fits);
    if (searched.search.largest > 0) searched.peak_bytes = peaks.at(searched.search.largest);
    modes.push_back(std::move(searched));
  }
  return modes;
}

// The config of one mode's run at its largest batch: that mode alone (so no gates against fp32).
nlohmann::json mode_config(nlohmann::json config, amp::PrecisionMode mode, int64_t batch) {
  config["train"]["batch_size"] = batch;
  config["precision"]["modes"] = {amp::to_string(mode)};
  config.erase("gates");
  return config;
}

// Runs one mode at its largest batch into <folder>/<mode>, and takes its figures from that run's report.
void measure_mode(const MaxBatchRequest& request, MaxBatchMode& mode, MaxBatchOutcome& outcome) {
  run::Request run = request.base;
  run.config = mode_config(run.config, mode.mode, mode.search.largest);
  run.memory_budget = outcome.report.budget_bytes;
  mode.run_folder = std::string(amp::to_string(mode.mode));
  try {
    run.run_folder = outcome.folder / mode.run_folder;
    std::filesystem::create_directory(*run.run_folder);  // in a folder this run just made
    auto ran = run::run_benchmark(run);
    if (!ran.report.summary.empty()) mode.figures = report::figures_of(ran.report.summary.front());
    if (!mode.figures || !mode.figures->samples_per_second)
      mode.not_measured =
          "its run at batch " + std::to_string(mode.search.largest) + " finished no timed trial";
    if (ran.report.measured.stopped_by) outcome.stopped_by = ran.report.measured.stopped_by;
    outcome.runs.push_back(std::move(ran));
  } catch (const std::exception& e) {
    // A config the largest batch makes invalid (warm-up steps an epoch no longer has, ...).
    mode.not_measured = e.what();
  }
}

}  // namespace

MaxBatchOutcome run_max_batch(const MaxBatchRequest& request) {
  run::Request check = request.base;
  check.dry_run = true;
  MaxBatchOutcome outcome;
  outcome.config = run::run_benchmark(check).config;
  const auto& config = outcome.config;
  const auto device = config::resolve_device(config);
  const int64_t budget = checked_budget(device, request.memory_budget);
  auto& report = outcome.report;
  report.name = config.name;
  report.device = device.str();
  report.budget_bytes = budget;
  report.budget_source = request.memory_budget ? "--memory-budget" : "free GPU memory";
  check_budget_holds_static_memory(config, budget);
  if (request.base.dry_run) return outcome;
  train::StopRequest::install_signal_handlers();
  {
    // The budget holds from the first try on, as it does in a run from its first trial on: what making
    // the data holds for a moment is not training's.
    train::Experiment experiment(config, device);
    report.train_samples = experiment.train_samples();
    // Beyond this the run at the largest batch would be refused (config::check_fits).
    report.steps_needed = std::max(config.train.warmup_steps + 1, config.train.accumulation_steps);
    report.batch_limit = report.train_samples / report.steps_needed;
    measure::MemoryBudgetScope scope(device, budget);
    report.modes = search_modes(experiment, report.batch_limit, budget);
  }  // its data and initial state are freed before the runs make their own
  try {
    outcome.folder = util::create_run_folder(config.output_dir, config.name + "-max-batch");
  } catch (const std::exception& e) {
    throw util::OutputError(e.what());
  }
  outcome.write_failure = util::write_files(outcome.folder, max_batch_files(report));
  for (auto& mode : report.modes) {
    if (outcome.stopped_by || train::StopRequest::requested()) break;
    if (mode.search.largest == 0) continue;
    measure_mode(request, mode, outcome);
    if (auto failure = util::write_files(outcome.folder, max_batch_files(report)))
      outcome.write_failure = failure;
  }
  if (train::StopRequest::requested() && !outcome.stopped_by)
    outcome.stopped_by = train::StopRequest::signal_name();
  return outcome;
}

}  // namespace ampbench::max_batch
