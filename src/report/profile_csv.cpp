#include <sstream>

#include "report/csv_cells.h"
#include "report/csv_report.h"
#include "report/profile_view.h"
#include "report/text_table.h"

namespace ampbench::report {
namespace {

using profile::ModeProfile;

std::string list_cell(const std::vector<std::string>& items) { return text_cell(join(items, " ")); }

// "512x128 128x3072": sizes joined by x, shapes by spaces; a 0-d tensor is "scalar".
std::string shapes_cell(const std::vector<std::vector<int64_t>>& shapes) {
  std::vector<std::string> items;
  for (const auto& shape : shapes) items.push_back(shape.empty() ? "scalar" : join_sizes(shape, "x"));
  return text_cell(join(items, " "));
}

// The cells every row shares: mode, row kind, phase, class, op, seconds, share, ratio.
void lead(std::ostringstream& out, amp::PrecisionMode mode, const char* row, const std::string& phase,
          const std::string& op_class, const std::string& op, double seconds, const ModeProfile& p,
          const std::optional<double>& ratio) {
  out << amp::to_string(mode) << ',' << row << ',' << phase << ',' << op_class << ',' << text_cell(op) << ','
      << csv_number(seconds) << ',' << optional_cell(step_share(p, seconds)) << ',' << optional_cell(ratio);
}

void op_rows(std::ostringstream& out, amp::PrecisionMode mode, const char* row, const ModeProfile& p,
             const std::vector<profile::OpTime>& ops, const ModeProfile* fp32) {
  for (const auto& op : ops) {
    lead(out, mode, row, std::string(to_string(op.phase)), std::string(to_string(op.op_class)), op.name,
         op.seconds, p, op_ratio(op, fp32));
    out << ',' << list_cell(op.dtypes) << ',' << shapes_cell(op.shapes) << ',' << csv_number(op.calls) << ','
        << csv_number(op.matmul_flops) << "\n";
  }
}

void mode_rows(std::ostringstream& out, amp::PrecisionMode mode, const ModeProfile& p,
               const ModeProfile* fp32) {
  for (const auto& c : p.classes) {
    lead(out, mode, "class", std::string(to_string(c.phase)), std::string(to_string(c.op_class)), "",
         c.seconds, p, class_ratio(p, fp32, c));
    out << ",,,,\n";
  }
  op_rows(out, mode, "op", p, p.top_ops, fp32);
  op_rows(out, mode, "fp32_in_autocast", p, p.precision.fp32_in_autocast, nullptr);
  const bool baseline = fp32 == &p || !fp32;
  auto ratio = [&](double value, double base) {
    return baseline || base <= 0 ? std::nullopt : std::optional(value / base);
  };
  lead(out, mode, "overhead", "", "", "", p.overhead_seconds, p,
       ratio(p.overhead_seconds, fp32 ? fp32->overhead_seconds : 0));
  out << ",,,,\n";
  lead(out, mode, "step", "", "", "", p.step_seconds, p,
       ratio(p.step_seconds, fp32 ? fp32->step_seconds : 0));
  out << ",,," << csv_number(p.precision.matmul_flops) << "\n";
}

}  // namespace

std::string to_profile_csv(const RunReport& report) {
  std::ostringstream out;
  out << kProfileCsvColumns << "\n";
  const auto* fp32 = fp32_profile(report.measured);
  for (const auto& record : report.measured.profiles) {
    if (record.profile) mode_rows(out, record.mode, *record.profile, fp32);
  }
  return out.str();
}

}  // namespace ampbench::report
