#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "report/report.h"

namespace ampbench::cli {

enum class ExportFormat { json, csv, markdown };

// Report files the user asked for beside the run folder (--export-json/-csv/-markdown); "-" is stdout.
class Exports {
 public:
  void add(ExportFormat format, std::string path);
  bool uses_stdout() const;
  // Fails fast, before any training: throws std::runtime_error naming the file that cannot be written
  // or saying that more than one export wants stdout.
  void check_writable() const;
  // Rewrites every file export (atomically); stdout exports are written only once the run is final.
  void write(const report::RunReport& report, bool final) const;

 private:
  std::vector<std::pair<ExportFormat, std::string>> targets_;
};

std::string render(ExportFormat format, const report::RunReport& report);

}  // namespace ampbench::cli
