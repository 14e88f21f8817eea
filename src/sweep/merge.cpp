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
  const auto text = util::read_bounded_file(path, util::kMaxReportBytes, "a report");
  try {
    return util::parse_json_strictly(text);
  } catch (const nlohmann::json::parse_error& e) {
    throw util::InputError(path.string(), std::string("is not JSON: ") + e.what());
  }
}

// A point that ran, with the folder its run wrote.
struct RanPoint {
  SweepPointReport point;
  fs::path run_folder;
  std::string shard_folder;
};

std::string named(const SweepPointReport& point) {
  return "point " + std::to_string(point.point.index) + " (" + describe(point.point) + ")";
}

// Every point exactly once, finished, across the shards.
std::map<int64_t, RanPoint> collect_points(const std::vector<SweepReport>& shards,
                                           const std::vector<std::string>& folders) {
  std::map<int64_t, RanPoint> ran;
  for (size_t s = 0; s < shards.size(); ++s) {
    for (const auto& point : shards[s].points) {
      if (point.run_folder.empty()) continue;  // another shard's, or never run here
      if (point.status != SweepPointStatus::finished)
        throw util::InputError(folders[s], named(point) + " did not finish there: run its shard again");
      const auto [it, added] = ran.emplace(
          point.point.index, RanPoint{point, fs::path(folders[s]) / point.run_folder, folders[s]});
      if (!added)
        throw util::InputError(
            folders[s], named(point) + " ran in " + it->second.shard_folder + " too: merge one of them");
    }
  }
  std::vector<std::string> missing;
  for (const auto& point : shards.front().points) {
    if (!ran.count(point.point.index)) missing.push_back(named(point));
  }
  if (!missing.empty()) {
    std::string list;
    for (const auto& name : missing) list += (list.empty() ? "" : "; ") + name;
    throw util::InputError("merge", "no folder ran " + list + ": give every shard's folder");
  }
  return ran;
}

// A point's report.json, which holds its config.
nlohmann::json report_of(const RanPoint& point) {
  const auto path = point.run_folder / "report.json";
  auto report = read_json(path);
  if (!report.is_object() || !report.contains("config") || !report["config"].is_object())
    throw util::InputError(path.string(), "is not a report with its config");
  return report;
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
  const auto expected = experiment_of(report_of(first), axes);
  for (const auto& [index, point] : ran) {
    const auto difference = nlohmann::json::diff(expected, experiment_of(report_of(point), axes));
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
      Pointer("/environment/cpu_model"),        Pointer("/model/archive/fingerprint")};
  return fields;
}

nlohmann::json value_at(const nlohmann::json& report, const nlohmann::json::json_pointer& field) {
  return report.contains(field) ? report[field] : nlohmann::json();
}

// Each point whose report records another build, machine or archive than the first point's: refused (one
// line naming both), or with `force` described for the merged report.
std::vector<std::string> check_one_environment(const std::map<int64_t, RanPoint>& ran, bool force) {
  const auto& first = ran.begin()->second;
  const auto expected = report_of(first);
  std::vector<std::string> differences;
  for (const auto& [index, point] : ran) {
    const auto report = report_of(point);
    for (const auto& field : deciding_fields()) {
      const auto theirs = value_at(expected, field), ours = value_at(report, field);
      if (theirs == ours) continue;
      const auto what =
          field.to_string() + " is " + ours.dump() + " there, " + theirs.dump() + " in " + named(first.point);
      if (!force)
        throw util::InputError(point.run_folder.string(),
                               named(point.point) + " ran on another build, machine " +
                                   "or archive: " + what + "; --force merges them");
      differences.push_back(named(point.point) + ": " + what);
      break;
    }
  }
  return differences;
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
  const auto ran = collect_points(shards, request.folders);
  check_one_experiment(ran, shards.front().axes);
  auto differences = check_one_environment(ran, request.force);
  MergeOutcome outcome;
  try {
    outcome.folder = util::create_run_folder(request.out_dir, shards.front().name + "-sweep-merged");
  } catch (const std::exception& e) {
    throw util::OutputError(e.what());
  }
  std::vector<SweepPointReport> points;
  for (const auto& [index, point] : ran) {
    auto merged = point.point;
    merged.run_folder = fs::relative(fs::absolute(point.run_folder), fs::absolute(outcome.folder)).string();
    points.push_back(std::move(merged));
  }
  outcome.report =
      make_sweep_report(shards.front().name, shards.front().axes, std::nullopt, std::move(points));
  outcome.report.environment_differences = std::move(differences);
  if (auto failure = util::write_files(outcome.folder, sweep_files(outcome.report)))
    throw util::OutputError(*failure);
  return outcome;
}

}  // namespace ampbench::sweep
