#include "max_batch/max_batch_render.h"

#include "measure/host_memory.h"
#include "util/csv_cells.h"
#include "util/csv_table.h"
#include "util/text_table.h"

namespace ampbench::max_batch {

namespace {

template <typename T>
nlohmann::json optional_json(const std::optional<T>& value) {
  return value ? nlohmann::json(*value) : nlohmann::json();
}

std::optional<double> samples_per_second(const MaxBatchMode& m) {
  return m.figures ? m.figures->samples_per_second : std::nullopt;
}

std::optional<measure::Interval> throughput_interval(const MaxBatchMode& m) {
  return m.figures ? m.figures->throughput_interval : std::nullopt;
}

std::optional<int64_t> largest(const MaxBatchMode& m) {
  return m.search.largest > 0 ? std::optional<int64_t>(m.search.largest) : std::nullopt;
}

nlohmann::json mode_json(const MaxBatchMode& m) {
  auto tries = nlohmann::json::array();
  for (const auto& t : m.search.tries) tries.push_back({{"batch", t.batch}, {"fits", t.fits}});
  const auto interval = throughput_interval(m);
  return {{"mode", amp::to_string(m.mode)},
          {"largest_batch", optional_json(largest(m))},
          {"smallest_refused_batch", optional_json(m.search.smallest_refused)},
          {"bounded_by", m.search.reached_limit ? "data" : "memory"},
          {"peak_bytes", optional_json(m.peak_bytes)},
          {"tries", tries},
          {"run_folder", m.run_folder.empty() ? nlohmann::json() : nlohmann::json(m.run_folder)},
          {"trials", m.figures ? nlohmann::json(m.figures->trials) : nlohmann::json()},
          {"emulated", m.figures ? nlohmann::json(m.figures->emulated) : nlohmann::json()},
          {"samples_per_second", optional_json(samples_per_second(m))},
          {"samples_per_second_interval_95",
           interval ? nlohmann::json{interval->low, interval->high} : nlohmann::json()},
          {"not_measured", optional_json(m.not_measured)}};
}

std::string interval_cell_text(const MaxBatchMode& m) {
  const auto rate = samples_per_second(m);
  if (!rate) return m.not_measured ? "not measured" : "-";
  if (m.figures->emulated) return "emulated";  // the emulation's time, no speed of the format's
  std::string text = util::format_number("%.1f", *rate);
  if (const auto interval = throughput_interval(m))
    text += " [" + util::format_number("%.1f", interval->low) + ", " +
            util::format_number("%.1f", interval->high) + "]";
  return text;
}

util::TextRows table_of(const MaxBatchReport& report) {
  util::TextRows rows{
      {"mode", "largest batch", "bounded by", "first refused", "peak MiB", "samples/s [95 %]"}};
  for (const auto& m : report.modes) {
    rows.push_back({std::string(amp::to_string(m.mode)), largest(m) ? std::to_string(*largest(m)) : "none",
                    m.search.reached_limit ? "data" : "memory",
                    m.search.smallest_refused ? std::to_string(*m.search.smallest_refused) : "-",
                    m.peak_bytes
                        ? util::format_number("%.1f", static_cast<double>(*m.peak_bytes) / (1024.0 * 1024.0))
                        : "-",
                    interval_cell_text(m)});
  }
  return rows;
}

std::string budget_line(const MaxBatchReport& report) {
  return "largest batch per mode within " + measure::human_bytes(double(report.budget_bytes)) + " (" +
         report.budget_source + ") on " + report.device + "; the data allows batches up to " +
         std::to_string(report.batch_limit) + "\n";
}

std::string not_measured_lines(const MaxBatchReport& report) {
  std::string out;
  for (const auto& m : report.modes) {
    if (m.not_measured)
      out += std::string(amp::to_string(m.mode)) + " not measured: " + *m.not_measured + "\n";
  }
  return out;
}

}  // namespace

nlohmann::json to_json(const MaxBatchReport& report) {
  auto modes = nlohmann::json::array();
  for (const auto& m : report.modes) modes.push_back(mode_json(m));
  return {{"max_batch_schema_version", kMaxBatchSchemaVersion},
          {"name", report.name},
          {"device", report.device},
          {"budget_bytes", report.budget_bytes},
          {"budget_source", report.budget_source},
          {"train_samples", report.train_samples},
          {"batch_limit", report.batch_limit},
          {"complete", report.complete()},
          {"modes", modes},
          {"lines", max_batch_lines(report)}};
}

std::string to_csv(const MaxBatchReport& report) {
  using M = const MaxBatchMode&;
  util::CsvColumns<MaxBatchMode> columns{
      {"mode", [](M m) { return std::string(amp::to_string(m.mode)); }},
      {"largest_batch", [](M m) { return util::optional_cell(largest(m)); }},
      {"bounded_by", [](M m) { return std::string(m.search.reached_limit ? "data" : "memory"); }},
      {"smallest_refused_batch", [](M m) { return util::optional_cell(m.search.smallest_refused); }},
      {"peak_bytes", [](M m) { return util::optional_cell(m.peak_bytes); }},
      {"budget_bytes", [&report](M) { return std::to_string(report.budget_bytes); }},
      {"samples_per_second", [](M m) { return util::optional_cell(samples_per_second(m)); }},
      {"samples_per_second_low",
       [](M m) { return throughput_interval(m) ? util::csv_number(throughput_interval(m)->low) : ""; }},
      {"samples_per_second_high",
       [](M m) { return throughput_interval(m) ? util::csv_number(throughput_interval(m)->high) : ""; }},
      {"not_measured", [](M m) { return util::text_cell(m.not_measured); }}};
  return util::render_csv(columns, report.modes);
}

std::string to_markdown(const MaxBatchReport& report) {
  std::string out = "# Largest batch: " + report.name + "\n\n" + budget_line(report) + "\n";
  for (const auto& line : max_batch_lines(report)) out += "- " + line + "\n";
  for (const auto& m : report.modes) {
    if (m.not_measured)
      out += "- " + std::string(amp::to_string(m.mode)) + " not measured: " + *m.not_measured + "\n";
  }
  return out + "\n" + util::render_markdown_table(table_of(report));
}

std::string to_console(const MaxBatchReport& report) {
  std::string out = budget_line(report) + util::render_aligned(table_of(report));
  for (const auto& line : max_batch_lines(report)) out += line + "\n";
  return out + not_measured_lines(report);
}

std::vector<util::OutputFile> max_batch_files(const MaxBatchReport& report) {
  return {{"max_batch.json", to_json(report).dump(2) + "\n"},
          {"max_batch.csv", to_csv(report)},
          {"max_batch.md", to_markdown(report)}};
}

}  // namespace ampbench::max_batch
