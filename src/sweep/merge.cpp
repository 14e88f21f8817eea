#include "sweep/merge.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <stdexcept>

#include "measure/statistics.h"
#include "sweep/sweep_reader.h"
#include "sweep/sweep_render.h"
#include "util/bounded_file.h"
#include "util/input_error.h"
#include "util/json_reader.h"
#include "util/json_schema.h"
#include "util/output_files.h"
#include "util/printable.h"

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

// A point's report.json, which holds its config and figures, as this ampbench writes one.
nlohmann::json report_at(const fs::path& run_folder) {
  const auto path = run_folder / "report.json";
  auto report = read_json(path);
  util::require_schema(report, "report.schema.json", path.string());
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

// A point's report is the run of that point: its config holds the point's value at every swept key, and no
// other point's folder is the same folder (a folder replaced by a link to another point's run, or a
// run_folder edited, would count one run twice).
void check_reports_are_their_points(const std::map<int64_t, RanPoint>& ran) {
  std::map<fs::path, const RanPoint*> folders;
  for (const auto& [index, point] : ran) {
    const auto report_file = (point.run_folder / "report.json").string();
    for (const auto& [key, value] : point.point.settings) {
      const nlohmann::json::json_pointer pointer(key);
      const auto& config = point.report["config"];
      const auto held = config.contains(pointer) ? config[pointer] : nlohmann::json();
      if (held != value)
        throw util::InputError(report_file, "its config has " + key + "=" + held.dump() + ", not " +
                                                named(point.point) + "'s " + value.dump() +
                                                ": the report of another run");
    }
    std::error_code error;
    const auto canonical = fs::weakly_canonical(point.run_folder, error);
    const auto [it, added] = folders.emplace(error ? point.run_folder : canonical, &point);
    if (!added)
      throw util::InputError(point.run_folder.string(), "is the run folder of " + named(it->second->point) +
                                                            " too: one run counted twice");
  }
}

bool same_figure(double written, double recomputed) {
  return std::abs(written - recomputed) <= 1e-9 * std::max(std::abs(written), std::abs(recomputed));
}

// A mode's figures recomputed from the report's own trials, as the run summarised them (report/summary.cpp):
// samples/s, its trials' rates over their compared epochs, the peak memory, and the speed-up over fp32's
// rates. Throws std::runtime_error naming the first figure that is not what its trials give.
void check_mode_figures(const nlohmann::json& report, const nlohmann::json& summary,
                        const std::map<std::string, std::vector<double>>& rates_by_mode) {
  const auto mode = summary.at("mode").get<std::string>();
  std::vector<double> epoch_rates;
  int64_t peak = 0;
  for (const auto& compared : summary.at("trials_compared")) {
    const auto number = compared.at("trial").get<int64_t>();
    const nlohmann::json* trial = nullptr;
    for (const auto& t : report.at("trials"))
      if (t.at("mode") == mode && t.at("trial") == number && t.at("status") == "ok") trial = &t;
    if (!trial)
      throw std::runtime_error(mode + "'s trial " + std::to_string(number) + " is not a finished trial");
    double samples = 0, seconds = 0;
    const auto& listed = compared.at("epochs");
    for (const auto& epoch : trial->at("epochs")) {
      if (std::find(listed.begin(), listed.end(), epoch.at("epoch")) == listed.end()) continue;
      samples += epoch.at("timed_samples").get<double>();
      seconds += epoch.at("seconds").get<double>();
      epoch_rates.push_back(epoch.at("samples_per_second").get<double>());
    }
    if (seconds <= 0 || !same_figure(compared.at("samples_per_second").get<double>(), samples / seconds))
      throw std::runtime_error(mode + "'s trial " + std::to_string(number) + " rate is not its epochs'");
    peak = std::max(peak, trial->at("memory").at("peak_bytes").get<int64_t>());
  }
  if (epoch_rates.empty()) throw std::runtime_error(mode + " compares no epoch");
  if (!same_figure(summary.at("samples_per_second").at("median").get<double>(),
                   *measure::median(epoch_rates)))
    throw std::runtime_error(mode + "'s samples_per_second is not its trials'");
  if (summary.at("peak_bytes").get<int64_t>() != peak)
    throw std::runtime_error(mode + "'s peak_bytes is not its trials'");
  const auto speedup = summary.find("speedup_vs_fp32");
  const auto fp32 = rates_by_mode.find("fp32");
  if (speedup != summary.end() && !speedup->is_null() && fp32 != rates_by_mode.end() &&
      !same_figure(speedup->get<double>(),
                   *measure::median(rates_by_mode.at(mode)) / *measure::median(fp32->second)))
    throw std::runtime_error(mode + "'s speedup_vs_fp32 is not its trials' against fp32's");
}

// Each mode the config runs has its trials, each mode with a finished trial has its summary, and each
// summary's figures are its trials'.
void check_point_figures(const RanPoint& point) {
  const auto report_file = (point.run_folder / "report.json").string();
  const auto& report = point.report;
  try {
    std::set<std::string> finished, summarised, tried;
    for (const auto& trial : report.at("trials")) {
      tried.insert(trial.at("mode").get<std::string>());
      if (trial.at("status") == "ok" && !trial.at("epochs").empty())
        finished.insert(trial.at("mode").get<std::string>());
    }
    for (const auto& mode : report.at("config").at("precision").at("modes"))
      if (!tried.count(mode.get<std::string>()))
        throw std::runtime_error("its trials hold none of " + mode.get<std::string>() +
                                 ", which its config runs");
    std::map<std::string, std::vector<double>> rates_by_mode;
    for (const auto& summary : report.at("summary")) {
      summarised.insert(summary.at("mode").get<std::string>());
      for (const auto& compared : summary.at("trials_compared"))
        rates_by_mode[summary.at("mode").get<std::string>()].push_back(
            compared.at("samples_per_second").get<double>());
    }
    if (finished != summarised)
      throw std::runtime_error("its summary does not hold every mode with a finished trial, and those alone");
    for (const auto& summary : report.at("summary")) check_mode_figures(report, summary, rates_by_mode);
  } catch (const nlohmann::json::exception& e) {
    throw util::InputError(report_file, named(point.point) + "'s report is not as ampbench writes it: " +
                                            util::printable(e.what(), 200));
  } catch (const std::runtime_error& e) {
    throw util::InputError(report_file, named(point.point) + "'s figures are not its trials': " + e.what());
  }
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
SweepPointReport merged_point(const RanPoint& ran) {
  SweepPointReport out;
  out.point = ran.point;
  out.status = SweepPointStatus::finished;
  try {
    out.batch_size =
        ran.report["config"].value(nlohmann::json::json_pointer("/train/batch_size"), int64_t{0});
    for (const auto& summary : ran.report["summary"]) out.modes.push_back(report::figures_of(summary));
  } catch (const std::exception& e) {
    throw util::InputError((ran.run_folder / "report.json").string(),
                           "has a config or summary ampbench cannot read: " + util::printable(e.what(), 200));
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
    const auto document = read_json(path);
    util::require_schema(document, "sweep.schema.json", path.string());
    shards.push_back(read_sweep_report(document, path.string()));
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
  check_reports_are_their_points(ran);
  check_one_experiment(ran, axes);
  auto differences = check_one_environment(ran, request.force);
  // Every point read and checked before anything is made.
  std::vector<SweepPointReport> points;
  for (const auto& [index, point] : ran) {
    check_point_figures(point);
    points.push_back(merged_point(point));
  }
  MergeOutcome outcome;
  try {
    outcome.folder = util::create_run_folder(request.out_dir, shards.front().name + "-sweep-merged");
  } catch (const std::exception& e) {
    throw util::OutputError(e.what());
  }
  auto folder = ran.begin();
  for (auto& point : points) {
    point.run_folder =
        fs::relative(fs::absolute(folder->second.run_folder), fs::absolute(outcome.folder)).string();
    ++folder;
  }
  outcome.report = make_sweep_report(shards.front().name, axes, std::nullopt, std::move(points));
  outcome.report.environment_differences = std::move(differences);
  if (auto failure = util::write_files(outcome.folder, sweep_files(outcome.report)))
    throw util::OutputError(*failure);
  return outcome;
}

}  // namespace ampbench::sweep
