#include "api/sweep.h"

#include <spdlog/spdlog.h>

#include "report/run_folder.h"
#include "report/sweep_render.h"

namespace ampbench::api {
namespace {

std::string point_name(const config::SweepPoint& point, size_t count) {
  return "sweep point " + std::to_string(point.index) + " of " + std::to_string(count) + " (" +
         config::describe(point) + ")";
}

Request request_for(const SweepRequest& sweep, const config::SweepPoint& point, size_t count) {
  Request request = sweep.base;
  request.config = point.config;
  // The fault fires in one point only: the last, so that those before it are kept.
  if (static_cast<size_t>(point.index) != count) request.fault.reset();
  return request;
}

// Each point's config, data and outputs, checked as a dry run checks them; the error names the point.
std::vector<Outcome> check_points(const SweepRequest& sweep, const std::vector<config::SweepPoint>& points) {
  std::vector<Outcome> checked;
  for (const auto& point : points) {
    auto request = request_for(sweep, point, points.size());
    request.dry_run = true;
    try {
      checked.push_back(run_benchmark(request));
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

std::optional<std::string> write_sweep_files(const std::filesystem::path& folder,
                                             const report::SweepReport& report) {
  try {
    report::write_file_atomically(folder / "sweep.json", report::to_json(report).dump(2) + "\n");
    report::write_file_atomically(folder / "sweep.csv", report::to_csv(report));
    report::write_file_atomically(folder / "sweep.md", report::to_markdown(report));
  } catch (const std::exception& e) {
    return e.what();
  }
  return std::nullopt;
}

// The report of the points so far: those that ran from their reports, the rest missing.
report::SweepReport sweep_report(const SweepRequest& sweep, const SweepOutcome& outcome,
                                 const std::vector<bool>& finished) {
  std::vector<report::SweepPointReport> points;
  for (size_t i = 0; i < outcome.points.size(); ++i) {
    if (i < outcome.outcomes.size()) {
      const auto& ran = outcome.outcomes[i];
      points.push_back(report::point_report(outcome.points[i], ran.config.train.batch_size, ran.report,
                                            finished[i], ran.run_folder.filename().string()));
    } else {
      points.push_back({outcome.points[i], 0, report::SweepPointStatus::missing, "", {}});
    }
  }
  return report::make_sweep_report(outcome.outcomes.empty() ? "" : outcome.outcomes.front().config.name,
                                   sweep.axes, std::move(points));
}

}  // namespace

SweepOutcome run_sweep(const SweepRequest& sweep) {
  SweepOutcome outcome;
  outcome.points = config::expand_sweep(sweep.base.config, sweep.axes);
  auto checked = check_points(sweep, outcome.points);
  if (sweep.base.dry_run) {
    outcome.outcomes = std::move(checked);
    return outcome;
  }
  const auto& first = checked.front().config;
  try {
    outcome.folder = report::create_run_folder(first.output_dir, first.name + "-sweep");
  } catch (const std::exception& e) {
    throw OutputError(e.what());
  }
  spdlog::info("sweep of {} points, writing to {}", outcome.points.size(), outcome.folder.string());
  std::vector<bool> finished;
  for (const auto& point : outcome.points) {
    spdlog::info("{}", point_name(point, outcome.points.size()));
    auto request = request_for(sweep, point, outcome.points.size());
    try {
      request.run_folder = make_point_folder(outcome.folder, point.index);
    } catch (const std::exception& e) {
      outcome.write_failure = e.what();
      break;
    }
    outcome.outcomes.push_back(run_benchmark(request));
    const auto& ran = outcome.outcomes.back();
    finished.push_back(sweep.finished ? sweep.finished(ran) : !ran.report.measured.stopped_by);
    outcome.report = sweep_report(sweep, outcome, finished);
    if (auto failure = write_sweep_files(outcome.folder, outcome.report)) outcome.write_failure = failure;
    if (!finished.back()) break;
  }
  outcome.report = sweep_report(sweep, outcome, finished);
  if (auto failure = write_sweep_files(outcome.folder, outcome.report)) outcome.write_failure = failure;
  return outcome;
}

}  // namespace ampbench::api
