#include "render/console_report.h"

#include <algorithm>
#include <sstream>
#include <vector>

#include "profile/profile_tables.h"
#include "render/departure_report.h"
#include "render/divergence_report.h"
#include "render/float8_table.h"
#include "render/numerics_report.h"
#include "render/pure_bf16_table.h"
#include "render/summary_table.h"
#include "util/text_table.h"

namespace ampbench::report {

namespace {

constexpr const char* kGreen = "\033[32m";
constexpr const char* kRed = "\033[31m";
constexpr const char* kYellow = "\033[33m";
constexpr const char* kReset = "\033[0m";

// Green when clearly faster than fp32, red when clearly slower.
const char* speedup_colour(const ModeSummary& s) {
  if (!s.speedup_vs_fp32 || s.mode == amp::PrecisionMode::fp32) return nullptr;
  if (*s.speedup_vs_fp32 >= 1.05) return kGreen;
  if (*s.speedup_vs_fp32 <= 0.95) return kRed;
  return nullptr;
}

}  // namespace

std::string to_console(const RunReport& report, bool colour) {
  std::ostringstream out;
  const auto& env = report.context.environment;
  out << report.context.name << ": " << report.context.model << " on " << env.device << " ("
      << env.device_name << "), LibTorch " << env.libtorch_version << ", " << env.build_type << " build\n";
  out << model_line(report) << "\n";

  const auto table = summary_table(report);
  out << util::render_aligned(table, [&](size_t row, size_t column, const std::string& cell) {
    if (!colour || row == 0 || column != kSpeedupColumn) return cell;
    // The row's mode, found by name: a mode that finished nothing has a row but no summary.
    auto s = std::find_if(report.summary.begin(), report.summary.end(), [&](const ModeSummary& summary) {
      return amp::to_string(summary.mode) == table[row][0];
    });
    const char* tint = s == report.summary.end() ? nullptr : speedup_colour(*s);
    return tint ? tint + cell + kReset : cell;
  });
  if (!report.summary.empty()) out << util::render_aligned(fidelity_table(report));
  out << summary_footnote(report) << "\n" << float8_footnote(report);
  if (const auto pure = pure_bf16_table(report); !pure.empty())
    out << "pure bf16\n" << util::render_aligned(pure) << pure_bf16_footnote(report);
  const auto& profiles = report.measured.profiles;
  if (const auto by_class = profile::time_by_class_table(profiles); !by_class.empty()) {
    out << "where the time went\n"
        << util::render_aligned(by_class)
        << util::render_aligned(profile::top_ops_table(profiles, profile::kTopOpsShown))
        << util::render_aligned(profile::precision_audit_table(profiles))
        << profile::profile_footnote(profiles) << "\n";
  }
  for (const auto& line : numerics_lines(report.measured.numerics)) out << "numerics: " << line << "\n";
  for (const auto& line : departure_lines(report.measured.numerics)) out << "numerics: " << line << "\n";
  for (const auto& line : divergence_lines(report.measured.trials, report.measured.fidelity_trials))
    out << "where the numbers went wrong: " << line << "\n";
  if (const auto& signal = report.measured.stopped_by)
    out << "partial report: stopped by " << *signal << "\n";
  for (const auto& g : report.gates) {
    const char* tint = g.passed ? kGreen : kRed;
    std::string verdict = g.passed ? "gate pass" : "gate FAIL";
    out << (colour ? tint + verdict + kReset : verdict) << ": " << g.message << "\n";
  }
  for (const auto& w : report.warnings) {
    out << (colour ? std::string(kYellow) + "warning" + kReset : std::string("warning")) << ": " << w.message
        << "; " << w.advice << "\n";
  }
  return out.str();
}

}  // namespace ampbench::report
