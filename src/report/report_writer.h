#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "report/report.h"
#include "util/output_files.h"

namespace ampbench::report {

enum class ExportFormat { json, csv, markdown };

// A report file the user asked for beside the run folder (--export-json/-csv/-markdown); "-" is stdout.
struct ExportTarget {
  ExportFormat format;
  std::string path;
};

std::string render(ExportFormat format, const RunReport& report);

// The one writer of a run's report files: report.json, report.csv, summary.csv, report.md and, with a
// profiled pass, profile.csv in the run folder, and
// the exports. Each file is written whole or not at all (util::write_file_atomically).
class ReportWriter {
 public:
  explicit ReportWriter(std::vector<ExportTarget> exports) : exports_(std::move(exports)) {}

  // Fails fast, before any training: throws std::runtime_error naming the export that cannot be written,
  // saying that more than one export wants stdout, or that two exports, or an export and one of the
  // run's `inputs`, are one file.
  void check_exports(const std::vector<util::NamedPath>& inputs) const;
  void set_run_folder(std::filesystem::path folder) { folder_ = std::move(folder); }
  const std::filesystem::path& run_folder() const { return folder_; }
  // Rewrites the run folder's files and every file export; tries them all, and returns the first
  // failure's message (the run goes on without it).
  std::optional<std::string> write(const RunReport& report) const;
  // The export that goes to stdout, rendered, if there is one: the caller prints it once the run is final
  // (the library itself never writes to stdout).
  std::optional<std::string> stdout_export(const RunReport& report) const;

 private:
  std::vector<ExportTarget> exports_;
  std::filesystem::path folder_;
};

}  // namespace ampbench::report
