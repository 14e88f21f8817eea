#include "cli/exports.h"

#include <iostream>
#include <stdexcept>

#include "report/csv_report.h"
#include "report/json_report.h"
#include "report/markdown_report.h"
#include "report/run_folder.h"

namespace ampbench::cli {

std::string render(ExportFormat format, const report::RunReport& report) {
  switch (format) {
    case ExportFormat::json:
      return report::to_json(report).dump(2) + "\n";
    case ExportFormat::csv:
      return report::to_csv(report);
    case ExportFormat::markdown:
      return report::to_markdown(report);
  }
  return {};
}

void Exports::add(ExportFormat format, std::string path) { targets_.emplace_back(format, std::move(path)); }

bool Exports::uses_stdout() const {
  for (const auto& [format, path] : targets_) {
    if (path == "-") return true;
  }
  return false;
}

void Exports::check_writable() const {
  int to_stdout = 0;
  for (const auto& [format, path] : targets_) {
    if (path == "-") {
      if (++to_stdout > 1) throw std::runtime_error("only one export can go to stdout (-)");
      continue;
    }
    report::check_file_writable(path);
  }
}

void Exports::write(const report::RunReport& report, bool final) const {
  for (const auto& [format, path] : targets_) {
    if (path != "-") {
      report::write_file_atomically(path, render(format, report));
    } else if (final) {
      std::cout << render(format, report) << std::flush;
    }
  }
}

}  // namespace ampbench::cli
