#include "report/console_report.h"

#include <algorithm>
#include <cstdio>
#include <sstream>
#include <vector>

namespace ampbench::report {
namespace {

std::string format(const char* pattern, double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, pattern, value);
  return buffer;
}

template <typename T>
std::string or_dash(const std::optional<T>& value, const char* pattern) {
  return value ? format(pattern, static_cast<double>(*value)) : "-";
}

std::string mebibytes(int64_t bytes) {
  return format("%.1f MiB", static_cast<double>(bytes) / (1024.0 * 1024.0));
}

std::string render_table(const std::vector<std::vector<std::string>>& rows) {
  std::vector<size_t> widths;
  for (const auto& row : rows) {
    widths.resize(std::max(widths.size(), row.size()));
    for (size_t i = 0; i < row.size(); ++i) widths[i] = std::max(widths[i], row[i].size());
  }
  std::ostringstream out;
  for (const auto& row : rows) {
    for (size_t i = 0; i < row.size(); ++i) {
      // First column left-aligned (names), the rest right-aligned (numbers).
      std::string pad(widths[i] - row[i].size(), ' ');
      out << (i == 0 ? row[i] + pad : pad + row[i]) << (i + 1 < row.size() ? "  " : "\n");
    }
  }
  return out.str();
}

}  // namespace

std::string to_console(const RunReport& report) {
  std::ostringstream out;
  const auto& env = report.environment;
  out << report.config.value("name", std::string()) << ": "
      << report.config["model"].value("type", std::string()) << " on " << env.device << " ("
      << env.device_name << "), LibTorch " << env.libtorch_version << ", " << env.build_type << " build\n";

  std::vector<std::vector<std::string>> rows{{"mode", "samples/s", "speed-up", "peak memory", "memory ratio",
                                              "val loss", "val loss delta", "val acc", "loss scale",
                                              "skipped"}};
  for (const auto& s : report.summary) {
    auto mode = std::find_if(report.modes.begin(), report.modes.end(),
                             [&](const ModeRecord& m) { return m.mode == s.mode; });
    const auto& last = mode->epochs.back();
    rows.push_back({std::string(amp::to_string(s.mode)), format("%.1f", s.samples_per_second),
                    or_dash(s.speedup_vs_fp32, "%.2fx"), mebibytes(mode->memory.peak_bytes),
                    or_dash(s.memory_ratio_vs_fp32, "%.2f"), format("%.4f", last.val_loss),
                    or_dash(s.val_loss_delta_vs_fp32, "%+.4f"), format("%.3f", last.val_accuracy),
                    or_dash(last.loss_scale, "%g"), or_dash(last.skipped_steps, "%.0f")});
  }
  out << render_table(rows);
  if (!report.summary.empty()) {
    const auto& compared = report.summary.front().epochs_compared;
    out << "samples/s over epoch" << (compared.size() > 1 ? "s " : " ") << compared.front();
    if (compared.size() > 1) out << "-" << compared.back();
    if (compared.front() > 1) out << " (epoch 1 left out)";
    out << "; peak memory above the staged data, by " << report.modes.front().memory.probe << "\n";
  }
  return out.str();
}

}  // namespace ampbench::report
