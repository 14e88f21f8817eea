#include "report/report_writer.h"

#include <functional>
#include <stdexcept>

#include "report/csv_report.h"
#include "report/json_report.h"
#include "report/markdown_report.h"
#include "report/run_folder.h"

namespace ampbench::report {

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

void ReportWriter::check_exports() const {
  int to_stdout = 0;
  for (const auto& [format, path] : exports_) {
    if (path == "-") {
      if (++to_stdout > 1) throw std::runtime_error("only one export can go to stdout (-)");
      continue;
    }
    check_file_writable(path);
  }
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
