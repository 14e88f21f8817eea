#include "report/report_writer.h"

#include <functional>
#include <stdexcept>

#include "report/csv_report.h"
#include "report/json_report.h"
#include "report/markdown_report.h"
#include "report/run_folder.h"

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

void ReportWriter::check_exports(const std::vector<NamedPath>& inputs) const {
  int to_stdout = 0;
  std::vector<NamedPath> files;
  for (const auto& [format, path] : exports_) {
    if (path == "-") {
      if (++to_stdout > 1) throw std::runtime_error("only one export can go to stdout (-)");
      continue;
    }
    check_file_writable(path);
    files.push_back({option_of(format), path});
  }
  check_distinct_files(files, inputs);
}

std::optional<std::string> ReportWriter::write(const RunReport& report) const {
  std::optional<std::string> failure;
  auto attempt = [&failure](const std::function<void()>& write) {
    try {
      write();
    } catch (const std::exception& e) {
      if (!failure) failure = e.what();
    }
  };
  attempt([&] {
    write_file_atomically(folder_ / "report.json", render(ExportFormat::json, report));
    write_file_atomically(folder_ / "report.csv", render(ExportFormat::csv, report));
    write_file_atomically(folder_ / "summary.csv", to_summary_csv(report));
    write_file_atomically(folder_ / "report.md", render(ExportFormat::markdown, report));
    if (!report.measured.profiles.empty())
      write_file_atomically(folder_ / "profile.csv", to_profile_csv(report));
  });
  attempt([&] {
    for (const auto& [format, path] : exports_) {
      if (path != "-") write_file_atomically(path, render(format, report));
    }
  });
  return failure;
}

std::optional<std::string> ReportWriter::stdout_export(const RunReport& report) const {
  for (const auto& [format, path] : exports_) {
    if (path == "-") return render(format, report);
  }
  return std::nullopt;
}

}  // namespace ampbench::report
