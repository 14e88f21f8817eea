#include "sweep/sweep_reader.h"

#include "sweep/sweep_render.h"
#include "util/input_error.h"

namespace ampbench::sweep {
namespace {

template <typename T>
std::optional<T> optional_of(const nlohmann::json& value) {
  if (value.is_null()) return std::nullopt;
  return value.get<T>();
}

std::optional<measure::Interval> interval_of(const nlohmann::json& value) {
  if (value.is_null()) return std::nullopt;
  return measure::Interval{value.at(0).get<double>(), value.at(1).get<double>()};
}

std::optional<report::FidelityVerdict> verdict_of(const nlohmann::json& value) {
  if (value.is_null()) return std::nullopt;
  if (auto verdict = report::fidelity_verdict_named(value.get<std::string>())) return verdict;
  throw std::invalid_argument("unknown fidelity verdict " + value.dump());
}

SweepPointStatus status_of(const std::string& name) {
  for (auto status : {SweepPointStatus::finished, SweepPointStatus::partial, SweepPointStatus::missing,
                      SweepPointStatus::elsewhere}) {
    if (name == to_string(status)) return status;
  }
  throw std::invalid_argument("unknown point status \"" + name + "\"");
}

report::SummaryFigures figures_of(const nlohmann::json& m) {
  const auto mode = amp::parse_precision_mode(m.at("mode").get<std::string>());
  if (!mode) throw std::invalid_argument("unknown mode " + m.at("mode").dump());
  return {*mode,
          m.value("emulated", false),  // versions 1 and 2 did not record it
          m.at("trials").get<int64_t>(),
          optional_of<double>(m.at("samples_per_second")),
          interval_of(m.at("samples_per_second_interval_95")),
          optional_of<double>(m.at("speedup_vs_fp32")),
          interval_of(m.at("speedup_interval_95")),
          m.at("peak_bytes").get<int64_t>(),
          optional_of<int64_t>(m.at("activation_bytes")),
          verdict_of(m.at("fidelity")),
          m.at("trial_rates").get<std::vector<double>>()};
}

// A point, its settings in the axes' order (as the grid made them).
SweepPointReport point_of(const nlohmann::json& p, const std::vector<SweepAxis>& axes) {
  SweepPointReport out;
  out.point.index = p.at("index").get<int64_t>();
  for (const auto& axis : axes) out.point.settings.emplace_back(axis.key, p.at("settings").at(axis.key));
  out.batch_size = optional_of<int64_t>(p.at("batch_size")).value_or(0);
  out.status = status_of(p.at("status").get<std::string>());
  out.run_folder = optional_of<std::string>(p.at("run_folder")).value_or("");
  for (const auto& m : p.at("modes")) out.modes.push_back(figures_of(m));
  return out;
}

SweepReport report_of(const nlohmann::json& doc) {
  std::vector<SweepAxis> axes;
  for (const auto& axis : doc.at("axes"))
    axes.push_back({axis.at("key").get<std::string>(), axis.at("values").get<std::vector<nlohmann::json>>()});
  std::optional<Shard> shard;
  if (const auto& s = doc.at("shard"); !s.is_null())
    shard = Shard{s.at("index").get<int64_t>(), s.at("count").get<int64_t>()};
  std::vector<SweepPointReport> points;
  for (const auto& p : doc.at("points")) points.push_back(point_of(p, axes));
  for (size_t i = 0; i < points.size(); ++i) {
    if (points[i].point.index != static_cast<int64_t>(i) + 1)
      throw std::invalid_argument("its points are not numbered 1 to " + std::to_string(points.size()));
  }
  auto report =
      make_sweep_report(doc.at("name").get<std::string>(), std::move(axes), shard, std::move(points));
  // Written since: absent from an older ampbench's sweep.json, as if empty.
  if (doc.contains("environment_differences"))
    report.environment_differences = doc.at("environment_differences").get<std::vector<std::string>>();
  if (doc.contains("run_order")) report.run_order = doc.at("run_order").get<std::vector<int64_t>>();
  return report;
}

}  // namespace

SweepReport read_sweep_report(const nlohmann::json& document, const std::string& name) {
  if (!document.is_object() || !document.contains("sweep_schema_version"))
    throw util::InputError(name, "is not an ampbench sweep report (no sweep_schema_version)");
  const auto& version = document["sweep_schema_version"];
  if (!version.is_number_integer() || version.get<int64_t>() < 1 ||
      version.get<int64_t>() > kSweepSchemaVersion)
    throw util::InputError(name, "sweep schema version " + version.dump() +
                                     "; this ampbench reads versions 1 to " +
                                     std::to_string(kSweepSchemaVersion));
  try {
    return report_of(document);
  } catch (const nlohmann::json::exception& e) {
    throw util::InputError(name, std::string("is not a sweep report as ampbench writes it: ") + e.what());
  } catch (const std::invalid_argument& e) {
    throw util::InputError(name, std::string("is not a sweep report as ampbench writes it: ") + e.what());
  }
}

}  // namespace ampbench::sweep
