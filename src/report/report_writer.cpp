#include "report/report_writer.h"

#include <stdexcept>

#include "profile/profile_csv.h"
#include "report/csv_report.h"
#include "report/json_report.h"
#include "report/markdown_report.h"
#include "report/numerics_report.h"
#include "util/output_files.h"

namespace ampbench::report {

namespace {

// The option that names an export, as the user gave it.
std::string option_of(ExportFormat format) {
  switch (format) {
    case ExportFormat::json:
      return "--export-json";
    case ExportFormat::csv:
      return "--export-csv";
    case ExportFormat::markdown:
      return "--export-markdown";
  }
  return {};
}

}  // namespace

std::string render(ExportFormat format, const RunReport& report) {
  switch (format) {
    case ExportFormat::json:
      return to_json(report).dump(2) + "\n";
    case ExportFormat::csv:
      return to_csv(report);
    case ExportFormat::markdown:
      return to_markdown(report);
  }
  return {};
}

namespace {

// The run folder's files: report.json, report.csv, summary.csv, report.md and, with a profiled pass,
// profile.csv, with a numerics pass numerics.csv.
std::vector<util::OutputFile> run_files(const RunReport& report) {
  std::vector<util::OutputFile> files{{"report.json", render(ExportFormat::json, report)},
                                      {"report.csv", render(ExportFormat::csv, report)},
                                      {"summary.csv", to_summary_csv(report)},
                                      {"report.md", render(ExportFormat::markdown, report)}};
  if (!report.measured.profiles.empty())
    files.push_back({"profile.csv", profile::to_profile_csv(report.measured.profiles)});
  if (!report.measured.numerics.empty())
    files.push_back({"numerics.csv", to_numerics_csv(report.measured.numerics)});
  return files;
}

}  // namespace

void ReportWriter::check_exports(const std::vector<util::NamedPath>& inputs) const {
  int to_stdout = 0;
  std::vector<util::NamedPath> files;
  for (const auto& [format, path] : exports_) {
    if (path == "-") {
      if (++to_stdout > 1) throw std::runtime_error("only one export can go to stdout (-)");
      continue;
    }
    util::check_file_writable(path);
    files.push_back({option_of(format), path});
  }
  util::check_distinct_files(files, inputs);
}

std::optional<std::string> ReportWriter::write(const RunReport& report) const {
  auto failure = util::write_files(folder_, run_files(report));
  // The exports are tried even when the run folder's files failed: they may lie on another disk.
  try {
    for (const auto& [format, path] : exports_) {
      if (path != "-") util::write_file_atomically(path, render(format, report));
    }
  } catch (const std::exception& e) {
    if (!failure) failure = e.what();
  }
  return failure;
}

std::optional<std::string> ReportWriter::stdout_export(const RunReport& report) const {
  for (const auto& [format, path] : exports_) {
    if (path == "-") return render(format, report);
  }
  return std::nullopt;
}

}  // namespace ampbench::report
