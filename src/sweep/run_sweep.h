#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "run/benchmark.h"
#include "sweep/sweep_config.h"
#include "sweep/sweep_report.h"

namespace ampbench::sweep {

// A sweep: one whole run (every mode, repeats, fidelity seeds) per point of a grid of config values.
struct SweepRequest {
  run::Request base;  // the config without its "sweep" key, and how to run each point; no exports
  std::vector<SweepAxis> axes;
  std::optional<Shard> shard;  // run only this share of the points (every point is still checked)
  // Run the points in an order shuffled by the config's seed rather than the grid's: a machine's drift over
  // the sweep then falls on no axis (the step-cost fit reads the batch size's effect from the points).
  bool shuffled = false;
  // Whether a point's run finished; the sweep stops after one that did not. Unset: it finished unless a
  // stop signal ended it.
  std::function<bool(const run::Outcome&)> finished;
  // The dashboards' exports (--export-bmf, --export-benchmark-action): a benchmark per point and mode.
  std::vector<report::ExportTarget> exports;
};

// One point's run: its outcome, and whether it finished (SweepRequest::finished).
struct PointRun {
  SweepPoint point;
  run::Outcome outcome;
  bool finished = false;
};

struct SweepOutcome {
  std::vector<SweepPoint> points;            // every point of the grid
  std::vector<PointRun> runs;                // the points that ran (a dry run: that were checked), in order
  SweepReport report;                        // empty after a dry run
  std::filesystem::path folder;              // the sweep folder (empty after a dry run)
  std::optional<std::string> write_failure;  // why the sweep's own report (or an export) could not be written
  std::optional<std::string> stdout_export;  // the export that goes to stdout, rendered
};

// The front door of a sweep. Checks every point as a dry run does before the first runs (throwing
// util::InputError that names the point, util::OutputError or run::UnreachableFault); then makes the sweep
// folder <output dir>/<name>-sweep[-shard-K-of-N]-<UTC time> and runs each point of its share into its own
// folder in it (point-N, N the point's index in the whole sweep), rewriting sweep.json, sweep.csv and
// sweep.md (and the exports) after each. A planted fault fires in the last point it runs only, so the points
// before it are kept. After a point that did not finish, the rest are reported missing.
SweepOutcome run_sweep(const SweepRequest& request);

}  // namespace ampbench::sweep
