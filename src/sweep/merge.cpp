#include "sweep/merge.h"

#include <map>

#include "sweep/sweep_reader.h"
#include "sweep/sweep_render.h"
#include "util/bounded_file.h"
#include "util/input_error.h"
#include "util/json_reader.h"
#include "util/output_files.h"

namespace ampbench::sweep {

namespace {

namespace fs = std::filesystem;

nlohmann::json read_json(const fs::path& path) {
  const auto text = util::read_bounded_file(path, util::kMaxReportBytes, "report");
  return util::parse_json_file(text, path.string());
}

// A point that ran, with the folder its run wrote and the report it wrote there.
struct RanPoint {
  SweepPoint point;  // as the grid of the axes makes it
  fs::path run_folder;
  std::string shard_folder;
  nlohmann::json report;
};

std::string named(const SweepPoint& point) {
  return "point " + std::to_string(point.index) + " (" + describe(point) + ")";
}

// A point's report.json, which holds its config and figures.
nlohmann::json report_at(const fs::path& run_folder) {
  const auto path = run_folder / "report.json";
  auto report = read_json(path);
  if (!report.is_object() || !report.contains("config") || !report["config"].is_object() ||
      !report.contains("summary") || !report["summary"].is_array())
    throw util::InputError(path.string(), "is not a report with its config and summary");
  return report;
}

// The grid's point a shard's sweep.json names, refused when the axes make no such point.
const SweepPoint& grid_point(const std::vector<SweepPoint>& grid, const SweepPointReport& point,
                             const std::string& folder) {
  const auto index = point.point.index;
  if (index < 1 || index > static_cast<int64_t>(grid.size()) ||
      grid[index - 1].settings != point.point.settings)
    throw util::InputError(folder, "its sweep.json has a point " + std::to_string(index) + " (" +
                                       describe(point.point) + ") that the sweep's axes do not make");
  return grid[index - 1];
}

// Every point of the grid exactly once, finished, across the shards; the set of points is the axes', not any
// one folder's.
std::map<int64_t, RanPoint> collect_points(const std::vector<SweepReport>& shards,
                                           const std::vector<std::string>& folders,
                                           const std::vector<SweepPoint>& grid) {
  std::map<int64_t, RanPoint> ran;
  for (size_t s = 0; s < shards.size(); ++s) {
    for (const auto& reported : shards[s].points) {
      if (reported.run_folder.empty()) continue;  // another shard's, or never run here
      const auto& point = grid_point(grid, reported, folders[s]);
      if (reported.status != SweepPointStatus::finished)
        throw util::InputError(folders[s], named(point) + " did not finish there: run its shard again");
      const auto run_folder = fs::path(folders[s]) / reported.run_folder;
      const auto [it, added] =
          ran.emplace(point.index, RanPoint{point, run_folder, folders[s], nlohmann::json()});
      if (!added)
        throw util::InputError(
            folders[s], named(point) + " ran in " + it->second.shard_folder + " too: merge one of them");
      it->second.report = report_at(run_folder);
      if (it->second.report.value("complete", false) != true)
        throw util::InputError(run_folder.string(),
                               named(point) + "'s report says it did not finish: run its shard again");
    }
  }
  std::string missing;
  for (const auto& point : grid) {
    if (!ran.count(point.index)) missing += (missing.empty() ? "" : "; ") + named(point);
  }
  if (!missing.empty())
    throw util::InputError("merge", "no folder ran " + missing + ": give every shard's folder");
  return ran;
}

// A point's config as its report records it, without what a sweep may change between its points.
nlohmann::json experiment_of(const nlohmann::json& report, const std::vector<SweepAxis>& axes) {
  auto config = report["config"];
  for (const auto& axis : axes) {
    const nlohmann::json::json_pointer key(axis.key);
    if (config.contains(key)) config[key.parent_pointer()].erase(key.back());
  }
  config.erase("output");
  return config;
}

void check_one_experiment(const std::map<int64_t, RanPoint>& ran, const std::vector<SweepAxis>& axes) {
  const auto& first = ran.begin()->second;
  const auto expected = experiment_of(first.report, axes);
  for (const auto& [index, point] : ran) {
    const auto difference = nlohmann::json::diff(expected, experiment_of(point.report, axes));
    if (!difference.empty())
      throw util::InputError(point.run_folder.string(),
                             "its config differs from " + named(first.point) + "'s at " +
                                 difference[0]["path"].get<std::string>() +
                                 ", beyond the swept keys: a point of another experiment");
  }
}

// What decides a point's figures besides its config, as its report records it: the build that ran it,
// the device and the CPU, and an exported model's archive.
const std::vector<nlohmann::json::json_pointer>& deciding_fields() {
  using Pointer = nlohmann::json::json_pointer;
  static const std::vector<Pointer> fields{
      Pointer("/environment/ampbench_version"), Pointer("/environment/git_commit"),
      Pointer("/environment/libtorch_version"), Pointer("/environment/cuda_version"),
      Pointer("/environment/device_name"),      Pointer("/environment/gpu_capability"),
      Pointer("/environment/cpu_model"),        Pointer("/environment/cpu_cores"),
      Pointer("/environment/torch_threads"),    Pointer("/model/archive/fingerprint")};
  return fields;
}

nlohmann::json value_at(const nlohmann::json& report, const nlohmann::json::json_pointer& field) {
  return report.contains(field) ? report[field] : nlohmann::json();
}

// Each point whose report records another build, machine or archive than the first point's, every field
// that differs named: refused (one line), or with `force` described for the merged report.
std::vector<std::string> check_one_environment(const std::map<int64_t, RanPoint>& ran, bool force) {
  const auto& first = ran.begin()->second;
  std::vector<std::string> differences;
  for (const auto& [index, point] : ran) {
    std::string what;
    for (const auto& field : deciding_fields()) {
      const auto theirs = value_at(first.report, field), ours = value_at(point.report, field);
      if (theirs != ours)
        what += (what.empty() ? "" : ", ") + field.to_string() + " is " + ours.dump() + " there, " +
                theirs.dump() + " in " + named(first.point);
    }
    if (what.empty()) continue;
    if (!force)
      throw util::InputError(point.run_folder.string(),
                             named(point.point) + " ran on another build, machine or archive: " + what +
                                 "; --force merges them");
    differences.push_back(named(point.point) + ": " + what);
  }
  return differences;
}

// A point's entry of the merged report, its figures from its own report.json (never copied from a shard's
// sweep.json, which a point's run does not write).
SweepPointReport merged_point(const RanPoint& ran, const fs::path& merged_folder) {
  SweepPointReport out;
  out.point = ran.point;
  out.batch_size = ran.report["config"].value(nlohmann::json::json_pointer("/train/batch_size"), int64_t{0});
  out.status = SweepPointStatus::finished;
  out.run_folder = fs::relative(fs::absolute(ran.run_folder), fs::absolute(merged_folder)).string();
  try {
    for (const auto& summary : ran.report["summary"]) out.modes.push_back(report::figures_of(summary));
  } catch (const std::exception& e) {
    throw util::InputError((ran.run_folder / "report.json").string(),
                           std::string("has a summary ampbench cannot read: ") + e.what());
  }
  return out;
}

// The sweep's points as its axes make them: their indices and settings (the values written into an empty
// document, since only the settings are compared).
std::vector<SweepPoint> expected_grid(const SweepReport& shard, const std::string& folder) {
  try {
    return expand_sweep(nlohmann::json::object(), shard.axes);
  } catch (const util::InputError& e) {
    throw util::InputError(folder, "its sweep.json has axes no sweep makes: " + e.problem());
  }
}

std::vector<SweepReport> read_shards(const std::vector<std::string>& folders) {
  std::vector<SweepReport> shards;
  for (const auto& folder : folders) {
    const auto path = fs::path(folder) / "sweep.json";
    shards.push_back(read_sweep_report(read_json(path), path.string()));
    const auto& first = shards.front();
    const auto& last = shards.back();
    bool same = first.axes.size() == last.axes.size();
    for (size_t a = 0; same && a < first.axes.size(); ++a)
      same = first.axes[a].key == last.axes[a].key && first.axes[a].values == last.axes[a].values;
    if (!same) throw util::InputError(folder, "sweeps other keys or values than " + folders.front());
  }
  return shards;
}

}  // namespace

MergeOutcome run_merge(const MergeRequest& request) {
  if (request.folders.empty()) throw util::InputError("merge", "give the sweep folders of every shard");
  const auto shards = read_shards(request.folders);
  const auto& axes = shards.front().axes;
  const auto ran =
      collect_points(shards, request.folders, expected_grid(shards.front(), request.folders.front()));
  check_one_experiment(ran, axes);
  auto differences = check_one_environment(ran, request.force);
  MergeOutcome outcome;
  try {
    outcome.folder = util::create_run_folder(request.out_dir, shards.front().name + "-sweep-merged");
  } catch (const std::exception& e) {
    throw util::OutputError(e.what());
  }
  std::vector<SweepPointReport> points;
  for (const auto& [index, point] : ran) points.push_back(merged_point(point, outcome.folder));
  outcome.report = make_sweep_report(shards.front().name, axes, std::nullopt, std::move(points));
  outcome.report.environment_differences = std::move(differences);
  if (auto failure = util::write_files(outcome.folder, sweep_files(outcome.report)))
    throw util::OutputError(*failure);
  return outcome;
}

}  // namespace ampbench::sweep
