#include "sweep/run_sweep.h"

#include <algorithm>

#include <ATen/CPUGeneratorImpl.h>
#include <ATen/ops/randperm.h>
#include <spdlog/spdlog.h>

#include "sweep/sweep_render.h"
#include "util/input_error.h"
#include "util/output_files.h"

namespace ampbench::sweep {

namespace {

std::string point_name(const SweepPoint& point, size_t count) {
  return "sweep point " + std::to_string(point.index) + " of " + std::to_string(count) + " (" +
         describe(point) + ")";
}

// The points this run runs, in the order it runs them: its share (or the whole sweep), in the grid's order
// or shuffled by the config's seed (torch's seeded permutation, the same on every machine).
std::vector<SweepPoint> run_order(const SweepRequest& sweep, const std::vector<SweepPoint>& points) {
  std::vector<SweepPoint> order;
  for (const auto& point : points)
    if (!sweep.shard || sweep.shard->holds(point.index)) order.push_back(point);
  if (!sweep.shuffled || order.empty()) return order;
  auto generator = at::make_generator<at::CPUGeneratorImpl>(sweep.base.config.value("seed", uint64_t{0}));
  const auto permutation = at::randperm(static_cast<int64_t>(order.size()), generator, at::kLong);
  const auto* drawn = permutation.data_ptr<int64_t>();
  std::vector<SweepPoint> shuffled;
  for (int64_t i = 0; i < permutation.numel(); ++i) shuffled.push_back(order[drawn[i]]);
  return shuffled;
}

run::Request request_for(const SweepRequest& sweep, const SweepPoint& point, int64_t last) {
  run::Request request = sweep.base;
  request.config = point.config;
  // The fault fires in one point only: the last it runs, so that those before it are kept.
  if (point.index != last) request.fault.reset();
  return request;
}

// Each point's config, data and outputs, checked as a dry run checks them; the error names the point.
std::vector<PointRun> check_points(const SweepRequest& sweep, const std::vector<SweepPoint>& points,
                                   int64_t last) {
  std::vector<PointRun> checked;
  for (const auto& point : points) {
    auto request = request_for(sweep, point, last);
    request.dry_run = true;
    try {
      checked.push_back({point, run::run_benchmark(request), true});
    } catch (const util::InputError& e) {
      const auto where = point_name(point, points.size());
      throw util::InputError(e.where().empty() ? where : where + ": " + e.where(), e.problem());
    }
  }
  return checked;
}

std::filesystem::path make_point_folder(const std::filesystem::path& sweep_folder, int64_t index) {
  auto folder = sweep_folder / ("point-" + std::to_string(index));
  std::filesystem::create_directory(folder);  // in a folder this sweep just made: never an existing one
  return folder;
}

// The report of the points so far: those that ran from their reports, the rest missing (or, in a shard,
// another shard's).
SweepReport sweep_report(const SweepRequest& sweep, const SweepOutcome& outcome) {
  std::vector<SweepPointReport> points;
  for (const auto& point : outcome.points) {
    const auto run = std::find_if(outcome.runs.begin(), outcome.runs.end(),
                                  [&](const PointRun& r) { return r.point.index == point.index; });
    if (run != outcome.runs.end()) {
      const auto& ran = run->outcome;
      points.push_back(point_report(point, ran.config.train.batch_size, ran.report, run->finished,
                                    ran.run_folder.filename().string()));
    } else {
      const bool here = !sweep.shard || sweep.shard->holds(point.index);
      points.push_back({point, 0, here ? SweepPointStatus::missing : SweepPointStatus::elsewhere, "", {}});
    }
  }
  auto report = make_sweep_report(outcome.runs.empty() ? "" : outcome.runs.front().outcome.config.name,
                                  sweep.axes, sweep.shard, std::move(points));
  for (const auto& run : outcome.runs) report.run_order.push_back(run.point.index);
  return report;
}

// A benchmark per mode of each point that ran, named by the experiment and the point's settings, so that
// the same point of the next sweep continues its series.
std::vector<report::Benchmark> sweep_benchmarks(const SweepOutcome& outcome) {
  std::vector<report::Benchmark> out;
  for (const auto& run : outcome.runs) {
    auto point =
        report::benchmarks_of(run.outcome.report, run.outcome.config.name + "/" + settings_label(run.point));
    out.insert(out.end(), std::make_move_iterator(point.begin()), std::make_move_iterator(point.end()));
  }
  return out;
}

void check_exports(const SweepRequest& sweep) {
  std::vector<util::NamedPath> inputs;
  if (!sweep.base.config_file.empty()) inputs.push_back({"the config file", sweep.base.config_file});
  try {
    report::check_exports(sweep.exports, inputs);
  } catch (const std::exception& e) {
    throw util::OutputError(e.what());
  }
}

// Rewrites sweep.json, sweep.csv, sweep.md and the exports; keeps the first failure.
void write_reports(const SweepRequest& sweep, SweepOutcome& outcome) {
  auto failure = util::write_files(outcome.folder, sweep_files(outcome.report));
  const auto benchmarks = sweep_benchmarks(outcome);
  const auto bmf = [&](report::ExportFormat) { return report::to_bmf(benchmarks); };
  auto export_failure = report::write_exports(sweep.exports, bmf, benchmarks);
  if (!failure) failure = export_failure;
  if (failure) outcome.write_failure = failure;
  for (const auto& target : sweep.exports)
    if (target.format == report::ExportFormat::bmf && target.path == "-")
      outcome.stdout_export = benchmarks.empty() ? std::string() : bmf(target.format);  // no {}: no BMF
}

std::string folder_name(const config::ExperimentConfig& config, const std::optional<Shard>& shard) {
  const std::string share =
      shard ? "-shard-" + std::to_string(shard->index) + "-of-" + std::to_string(shard->count) : "";
  return config.name + "-sweep" + share;
}

}  // namespace

SweepOutcome run_sweep(const SweepRequest& sweep) {
  SweepOutcome outcome;
  outcome.points = expand_sweep(sweep.base.config, sweep.axes);
  const auto order = run_order(sweep, outcome.points);
  // A share with no point would measure nothing and still make a folder: refused, as any bad input.
  if (order.empty())
    throw util::InputError("--shard",
                           std::to_string(sweep.shard->index) + "/" + std::to_string(sweep.shard->count) +
                               " holds no point of a sweep of " + std::to_string(outcome.points.size()) +
                               ": a sweep of N points has N shards at most");
  const int64_t last = order.back().index;
  auto checked = check_points(sweep, outcome.points, last);
  check_exports(sweep);
  if (sweep.base.dry_run) {
    outcome.runs = std::move(checked);
    return outcome;
  }
  try {
    outcome.folder = util::create_run_folder(checked.front().outcome.config.output_dir,
                                             folder_name(checked.front().outcome.config, sweep.shard));
  } catch (const std::exception& e) {
    throw util::OutputError(e.what());
  }
  spdlog::info("sweep of {} points, writing to {}", outcome.points.size(), outcome.folder.string());
  for (const auto& point : order) {
    spdlog::info("{}", point_name(point, outcome.points.size()));
    auto request = request_for(sweep, point, last);
    try {
      request.run_folder = make_point_folder(outcome.folder, point.index);
    } catch (const std::exception& e) {
      outcome.write_failure = e.what();
      break;
    }
    auto ran = run::run_benchmark(request);
    const bool finished = sweep.finished ? sweep.finished(ran) : !ran.report.measured.stopped_by;
    outcome.runs.push_back({point, std::move(ran), finished});
    outcome.report = sweep_report(sweep, outcome);
    write_reports(sweep, outcome);
    if (!finished) break;
  }
  outcome.report = sweep_report(sweep, outcome);
  write_reports(sweep, outcome);
  return outcome;
}

}  // namespace ampbench::sweep
