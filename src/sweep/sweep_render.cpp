#include "sweep/sweep_render.h"

#include "util/csv_cells.h"
#include "util/csv_table.h"
#include "util/text_table.h"

namespace ampbench::sweep {

namespace {

template <typename T>
nlohmann::json optional_json(const std::optional<T>& value) {
  return value ? nlohmann::json(*value) : nlohmann::json();
}

nlohmann::json interval_json(const std::optional<measure::Interval>& interval) {
  return interval ? nlohmann::json{interval->low, interval->high} : nlohmann::json();
}

std::optional<std::string> verdict_name(const std::optional<report::FidelityVerdict>& verdict) {
  if (!verdict) return std::nullopt;
  return std::string(to_string(*verdict));
}

// Whether a point needs nothing more from this report's run: it finished, or is another shard's.
bool finished_or_elsewhere(const SweepPointReport& point) {
  return point.status == SweepPointStatus::finished || point.status == SweepPointStatus::elsewhere;
}

nlohmann::json mode_json(const report::SummaryFigures& f) {
  return {{"mode", amp::to_string(f.mode)},
          {"emulated", f.emulated},
          {"trials", f.trials},
          {"samples_per_second", optional_json(f.samples_per_second)},
          {"samples_per_second_interval_95", interval_json(f.throughput_interval)},
          {"speedup_vs_fp32", optional_json(f.speedup_vs_fp32)},
          {"speedup_interval_95", interval_json(f.speedup_interval)},
          {"peak_bytes", f.peak_bytes},
          {"activation_bytes", optional_json(f.activation_bytes)},
          {"fidelity", optional_json(verdict_name(f.fidelity))},
          {"trial_rates", f.trial_rates}};
}

nlohmann::json point_json(const SweepPointReport& p) {
  nlohmann::json settings = nlohmann::json::object(), modes = nlohmann::json::array();
  for (const auto& [key, value] : p.point.settings) settings[key] = value;
  for (const auto& figures : p.modes) modes.push_back(mode_json(figures));
  return {{"index", p.point.index},
          {"settings", settings},
          {"batch_size", p.run_folder.empty() ? nlohmann::json() : nlohmann::json(p.batch_size)},
          {"status", to_string(p.status)},
          {"run_folder", p.run_folder.empty() ? nlohmann::json() : nlohmann::json(p.run_folder)},
          {"modes", modes}};
}

nlohmann::json shape_json(const SpeedupShape& s) {
  return {
      {"mode", amp::to_string(s.mode)},
      {"best_point", optional_json(s.best_point)},
      {"tied_with_best", s.tied_with_best},
      {"faster", s.faster},
      {"slower", s.slower},
      {"undecided", s.undecided},
      {"crossing", s.crossing ? nlohmann::json{s.crossing->first, s.crossing->second} : nlohmann::json()}};
}

nlohmann::json step_cost_json(const StepCostFit& cost) {
  auto shares = nlohmann::json::array();
  for (const auto& [point, share] : cost.fixed_share) shares.push_back({{"point", point}, {"share", share}});
  return {{"mode", amp::to_string(cost.mode)},
          {"samples", cost.fit.samples},
          {"fixed_seconds", cost.fit.intercept},
          {"fixed_seconds_interval_95", interval_json(cost.fit.intercept_interval)},
          {"per_sample_seconds", cost.fit.slope},
          {"per_sample_seconds_interval_95", interval_json(cost.fit.slope_interval)},
          {"fixed_share", shares}};
}

// The fixed cost's share of the step of this mode at this point, where its mode was fitted.
std::optional<double> fixed_share(const SweepReport& report, int64_t point, amp::PrecisionMode mode) {
  for (const auto& cost : report.step_costs) {
    if (cost.mode != mode) continue;
    for (const auto& [index, share] : cost.fixed_share) {
      if (index == point) return share;
    }
  }
  return std::nullopt;
}

// A row of the tables: one mode at one point (a missing point has one row, without a mode).
struct Row {
  const SweepPointReport* point;
  const report::SummaryFigures* figures;  // null for a missing point
};

std::vector<Row> rows_of(const SweepReport& report) {
  std::vector<Row> rows;
  for (const auto& point : report.points) {
    if (point.modes.empty()) rows.push_back({&point, nullptr});
    for (const auto& figures : point.modes) rows.push_back({&point, &figures});
  }
  return rows;
}

std::string value_text(const nlohmann::json& value) {
  return value.is_string() ? value.get<std::string>() : value.dump();
}

std::string interval_text(const std::optional<double>& value,
                          const std::optional<measure::Interval>& interval, const char* pattern) {
  if (!value) return "-";
  std::string text = util::format_number(pattern, *value);
  if (interval)
    text += " [" + util::format_number(pattern, interval->low) + ", " +
            util::format_number(pattern, interval->high) + "]";
  return text;
}

std::string mib_text(std::optional<int64_t> bytes) {
  return bytes ? util::format_number("%.1f", static_cast<double>(*bytes) / (1024.0 * 1024.0)) : "-";
}

util::TextRows table_of(const SweepReport& report) {
  util::TextRows rows{{"point"}};
  for (const auto& axis : report.axes) rows[0].push_back(axis.key);
  for (const char* name :
       {"status", "mode", "samples/s [95 %]", "vs fp32 [95 %]", "peak MiB", "activations MiB", "fidelity"})
    rows[0].push_back(name);
  for (const auto& [point, f] : rows_of(report)) {
    std::vector<std::string> row{std::to_string(point->point.index)};
    for (const auto& setting : point->point.settings) row.push_back(value_text(setting.second));
    row.push_back(std::string(to_string(point->status)));
    if (!f) {
      row.insert(row.end(), 6, "-");  // mode and its figures
    } else {
      row.push_back(std::string(amp::to_string(f->mode)));
      // The emulation's samples/s are no speed of the format's: the run's table says so too.
      row.push_back(f->emulated ? "emulated"
                                : interval_text(f->samples_per_second, f->throughput_interval, "%.1f"));
      // fp32 is the baseline: 1.00x by definition.
      row.push_back(f->mode == amp::PrecisionMode::fp32 ? "1.00x" : speedup_text(*f));
      row.push_back(mib_text(f->peak_bytes));
      row.push_back(mib_text(f->activation_bytes));
      row.push_back(verdict_name(f->fidelity).value_or("-"));
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

std::string missing_line(const SweepReport& report) {
  std::vector<std::string> missing;
  for (const auto& point : report.points) {
    if (!finished_or_elsewhere(point))
      missing.push_back(std::to_string(point.point.index) + " (" + describe(point.point) + ", " +
                        std::string(to_string(point.status)) + ")");
  }
  return missing.empty() ? "" : "partial sweep: not finished: " + util::join(missing, "; ") + "\n";
}

}  // namespace

nlohmann::json to_json(const SweepReport& report) {
  nlohmann::json axes = nlohmann::json::array(), points = nlohmann::json::array(),
                 shapes = nlohmann::json::array(), missing = nlohmann::json::array();
  for (const auto& axis : report.axes) axes.push_back({{"key", axis.key}, {"values", axis.values}});
  for (const auto& point : report.points) {
    points.push_back(point_json(point));
    if (!finished_or_elsewhere(point)) missing.push_back(point.point.index);
  }
  for (const auto& shape : report.shapes) shapes.push_back(shape_json(shape));
  auto costs = nlohmann::json::array();
  for (const auto& cost : report.step_costs) costs.push_back(step_cost_json(cost));
  auto lines = report_lines(report);
  return {
      {"sweep_schema_version", kSweepSchemaVersion},
      {"name", report.name},
      {"complete", report.complete()},
      {"shard", report.shard ? nlohmann::json{{"index", report.shard->index}, {"count", report.shard->count}}
                             : nlohmann::json()},
      {"axes", axes},
      {"not_finished", missing},
      {"points", points},
      {"speedup_shapes", shapes},
      {"step_costs", costs},
      {"environment_differences", report.environment_differences},
      {"run_order", report.run_order},
      {"lines", lines}};
}

std::string to_csv(const SweepReport& report) {
  util::CsvColumns<Row> columns{{"point", [](const Row& r) { return std::to_string(r.point->point.index); }}};
  for (size_t a = 0; a < report.axes.size(); ++a) {
    columns.push_back({report.axes[a].key.c_str(), [a](const Row& r) {
                         return util::text_cell(value_text(r.point->point.settings[a].second));
                       }});
  }
  using F = const report::SummaryFigures&;
  auto figure = [](auto get) {
    return [get](const Row& r) { return r.figures ? get(*r.figures) : std::string(); };
  };
  util::CsvColumns<Row> rest{
      {"status", [](const Row& r) { return std::string(to_string(r.point->status)); }},
      {"mode", figure([](F f) { return std::string(amp::to_string(f.mode)); })},
      {"emulated", figure([](F f) { return std::string(f.emulated ? "true" : "false"); })},
      {"trials", figure([](F f) { return std::to_string(f.trials); })},
      {"samples_per_second", figure([](F f) { return util::optional_cell(f.samples_per_second); })},
      {"samples_per_second_low",
       figure([](F f) { return f.throughput_interval ? util::csv_number(f.throughput_interval->low) : ""; })},
      {"samples_per_second_high", figure([](F f) {
         return f.throughput_interval ? util::csv_number(f.throughput_interval->high) : "";
       })},
      {"speedup_vs_fp32", figure([](F f) { return util::optional_cell(f.speedup_vs_fp32); })},
      {"speedup_low",
       figure([](F f) { return f.speedup_interval ? util::csv_number(f.speedup_interval->low) : ""; })},
      {"speedup_high",
       figure([](F f) { return f.speedup_interval ? util::csv_number(f.speedup_interval->high) : ""; })},
      {"peak_bytes", figure([](F f) { return std::to_string(f.peak_bytes); })},
      {"activation_bytes", figure([](F f) { return util::optional_cell(f.activation_bytes); })},
      {"fidelity", figure([](F f) { return util::text_cell(verdict_name(f.fidelity)); })},
      {"fixed_share", [&report](const Row& r) {
         return r.figures ? util::optional_cell(fixed_share(report, r.point->point.index, r.figures->mode))
                          : "";
       }}};
  columns.insert(columns.end(), rest.begin(), rest.end());
  return util::render_csv(columns, rows_of(report));
}

std::string to_markdown(const SweepReport& report) {
  std::string out = "# Sweep: " + report.name + "\n\n";
  for (const auto& line : report_lines(report)) out += "- " + line + "\n";
  const auto missing = missing_line(report);
  if (!missing.empty()) out += "\n**" + missing.substr(0, missing.size() - 1) + "**\n";
  return out + "\n" + util::render_markdown_table(table_of(report));
}

std::string to_console(const SweepReport& report) {
  std::string out = util::render_aligned(table_of(report));
  for (const auto& line : report_lines(report)) out += line + "\n";
  return out + missing_line(report);
}

std::vector<util::OutputFile> sweep_files(const SweepReport& report) {
  return {{"sweep.json", to_json(report).dump(2) + "\n"},
          {"sweep.csv", to_csv(report)},
          {"sweep.md", to_markdown(report)}};
}

}  // namespace ampbench::sweep
