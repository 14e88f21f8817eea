#include "exports/report_writer.h"

#include <stdexcept>
#include <system_error>

#include "profile/profile_csv.h"
#include "render/csv_report.h"
#include "render/json_report.h"
#include "render/markdown_report.h"
#include "render/numerics_report.h"
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
    case ExportFormat::bmf:
      return "--export-bmf";
    case ExportFormat::benchmark_action:
      return "--export-benchmark-action";
  }
  return {};
}

// A folder export: an existing folder, or one whose parent can take it; and each of its files writable.
void check_export_folder(const std::filesystem::path& folder) {
  std::error_code error;
  const bool exists = std::filesystem::exists(folder, error);
  if (exists && !std::filesystem::is_directory(folder, error))
    throw std::runtime_error("--export-benchmark-action " + folder.string() + " is not a folder");
  if (!exists) return util::check_file_writable(folder);
  for (const auto& file : benchmark_action_files({})) util::check_file_writable(folder / file.name);
}

std::optional<std::string> write_export_folder(const std::filesystem::path& folder,
                                               const std::vector<Benchmark>& benchmarks) {
  std::error_code error;
  std::filesystem::create_directory(folder, error);
  if (error) return "cannot make --export-benchmark-action " + folder.string() + ": " + error.message();
  return util::write_files(folder, benchmark_action_files(benchmarks));
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
    case ExportFormat::bmf:
      return to_bmf(benchmarks_of(report, report.context.name));
    case ExportFormat::benchmark_action:
      break;
  }
  return {};
}

void check_exports(const std::vector<ExportTarget>& exports, const std::vector<util::NamedPath>& inputs) {
  int to_stdout = 0;
  std::vector<util::NamedPath> files;
  for (const auto& [format, path] : exports) {
    if (format == ExportFormat::benchmark_action) {
      check_export_folder(path);
      for (const auto& file : benchmark_action_files({}))
        files.push_back({option_of(format), std::filesystem::path(path) / file.name});
      continue;
    }
    if (path == "-") {
      if (++to_stdout > 1) throw std::runtime_error("only one export can go to stdout (-)");
      continue;
    }
    util::check_file_writable(path);
    files.push_back({option_of(format), path});
  }
  util::check_distinct_files(files, inputs);
}

std::optional<std::string> write_exports(const std::vector<ExportTarget>& exports,
                                         const std::function<std::string(ExportFormat)>& render,
                                         const std::vector<Benchmark>& benchmarks) {
  std::optional<std::string> failure;
  for (const auto& [format, path] : exports) {
    std::optional<std::string> problem;
    // Bencher Metric Format holds one benchmark or more: with none (no mode finished a trial) no file is
    // written, and the run's exit code (4) says why.
    if (format == ExportFormat::bmf && benchmarks.empty()) continue;
    if (format == ExportFormat::benchmark_action) {
      problem = write_export_folder(path, benchmarks);
    } else if (path != "-") {
      try {
        util::write_file_atomically(path, render(format));
      } catch (const std::exception& e) {
        problem = e.what();
      }
    }
    if (!failure) failure = problem;
  }
  return failure;
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
  report::check_exports(exports_, inputs);
}

std::optional<std::string> ReportWriter::write(const RunReport& report) const {
  auto failure = util::write_files(folder_, run_files(report));
  // The exports are tried even when the run folder's files failed: they may lie on another disk.
  auto export_failure = write_exports(
      exports_, [&](ExportFormat format) { return render(format, report); },
      benchmarks_of(report, report.context.name));
  return failure ? failure : export_failure;
}

std::optional<std::string> ReportWriter::stdout_export(const RunReport& report) const {
  for (const auto& [format, path] : exports_) {
    if (path != "-" || format == ExportFormat::benchmark_action) continue;
    // As write_exports: no BMF without a benchmark; stdout stays the export's, and empty.
    if (format == ExportFormat::bmf && benchmarks_of(report, report.context.name).empty()) return "";
    return render(format, report);
  }
  return std::nullopt;
}

}  // namespace ampbench::report
