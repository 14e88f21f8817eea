#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "config/experiment_config.h"
#include "exports/report_writer.h"
#include "report/report.h"
#include "train/fault_injection.h"
#include "train/progress.h"

namespace ampbench::run {

// A planted fault (testing) that would never fire in this run, so a test cannot pass by missing it.
class UnreachableFault : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// What to benchmark, and how to tell the caller about it.
struct Request {
  nlohmann::json config;              // the config document, with the command line's overrides applied
  std::filesystem::path config_file;  // the file it was read from, if any: no export may replace it
  std::optional<train::FaultInjection> fault;
  std::vector<report::ExportTarget> exports;
  bool dry_run = false;                 // make every check a run makes, then stop: nothing is written
  train::Progress* progress = nullptr;  // updated as steps finish (for a live display)
  // The folder to write into, made by the caller (a sweep's point); else a new one under the config's
  // output dir.
  std::optional<std::filesystem::path> run_folder;
  // The bytes every tensor may hold while the trials run (measure::MemoryBudgetScope); unset: no budget.
  std::optional<int64_t> memory_budget;
  // Called once every check has passed and the run folder exists, just before the first trial.
  std::function<void(const std::filesystem::path& run_folder)> on_start;
};

// What happened.
struct Outcome {
  config::ExperimentConfig config;           // as resolved, every default filled in
  report::RunReport report;                  // the final report (empty after a dry run)
  std::filesystem::path run_folder;          // where it was written (empty after a dry run)
  std::optional<std::string> write_failure;  // why the last write of the reports failed, if it did
  std::optional<std::string> stdout_export;  // the export that goes to stdout, rendered
};

// The front door of one run: one benchmark from a request. Checks everything the request gives before
// anything is written (the config, the device, the data, the fault, the outputs) and throws
// util::InputError, util::OutputError or UnreachableFault for what is wrong; then runs every trial, analysing
// and rewriting the reports after each, so that a crash later loses nothing. A report that cannot be
// written does not stop the run: the outcome says why. A stop signal (SIGINT, SIGTERM, SIGHUP, SIGQUIT)
// during the run stops it at the next step; the outcome's report is then partial.
Outcome run_benchmark(const Request& request);

}  // namespace ampbench::run
