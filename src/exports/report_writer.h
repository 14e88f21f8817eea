#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "exports/benchmark_export.h"
#include "report/report.h"
#include "util/output_files.h"

namespace ampbench::report {

// The reports (json, csv, markdown) and the dashboards' formats: Bencher's (bmf) and
// github-action-benchmark's (benchmark_action, a folder of two files).
enum class ExportFormat { json, csv, markdown, bmf, benchmark_action };

// A report the user asked for beside the run folder (--export-json/-csv/-markdown/-bmf, a file or "-" for
// stdout; --export-benchmark-action, a folder).
struct ExportTarget {
  ExportFormat format;
  std::string path;
};

// A file export's text (not benchmark_action's).
std::string render(ExportFormat format, const RunReport& report);

// Throws std::runtime_error naming the export that cannot be written, saying that more than one export
// wants stdout, or that two exports, or an export and one of `inputs`, are one file.
void check_exports(const std::vector<ExportTarget>& exports, const std::vector<util::NamedPath>& inputs);

// Writes every export but the one on stdout, a file's text from `render`, benchmark_action's folder from
// `benchmarks` (made if missing); tries them all, and returns the first failure's message.
std::optional<std::string> write_exports(const std::vector<ExportTarget>& exports,
                                         const std::function<std::string(ExportFormat)>& render,
                                         const std::vector<Benchmark>& benchmarks);

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
