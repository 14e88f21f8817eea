#include "profile/profile_csv.h"

#include "profile/profile_view.h"
#include "util/csv_cells.h"
#include "util/csv_table.h"
#include "util/text_table.h"

namespace ampbench::profile {
namespace {

// A row of profile.csv; the cells a row kind does not have stay empty.
struct ProfileRow {
  amp::PrecisionMode mode;
  const char* row;  // class, op, fp32_in_autocast, overhead, step
  std::string phase, op_class, op;
  double seconds = 0;
  std::optional<double> share, ratio;
  const OpTime* op_time = nullptr;     // the op rows'
  std::optional<double> matmul_flops;  // the op and step rows'
};

std::string list_cell(const std::vector<std::string>& items) {
  return util::text_cell(util::join(items, " "));
}

// "512x128 128x3072": sizes joined by x, shapes by spaces; a 0-d tensor is "scalar".
std::string shapes_cell(const std::vector<std::vector<int64_t>>& shapes) {
  std::vector<std::string> items;
  for (const auto& shape : shapes) items.push_back(shape.empty() ? "scalar" : util::join_sizes(shape, "x"));
  return util::text_cell(util::join(items, " "));
}

template <typename Cell>
std::function<std::string(const ProfileRow&)> op_cell(Cell cell) {
  return [cell](const ProfileRow& r) { return r.op_time ? cell(*r.op_time) : std::string(); };
}

const util::CsvColumns<ProfileRow>& profile_columns() {
  static const util::CsvColumns<ProfileRow> columns{
      {"mode", [](const ProfileRow& r) { return std::string(amp::to_string(r.mode)); }},
      {"row", [](const ProfileRow& r) { return std::string(r.row); }},
      {"phase", [](const ProfileRow& r) { return r.phase; }},
      {"op_class", [](const ProfileRow& r) { return r.op_class; }},
      {"op", [](const ProfileRow& r) { return util::text_cell(r.op); }},
      {"seconds", [](const ProfileRow& r) { return util::csv_number(r.seconds); }},
      {"share", [](const ProfileRow& r) { return util::optional_cell(r.share); }},
      {"ratio_vs_fp32", [](const ProfileRow& r) { return util::optional_cell(r.ratio); }},
      {"dtypes", op_cell([](const OpTime& op) { return list_cell(op.dtypes); })},
      {"shapes", op_cell([](const OpTime& op) { return shapes_cell(op.shapes); })},
      {"calls", op_cell([](const OpTime& op) { return util::csv_number(op.calls); })},
      {"matmul_flops", [](const ProfileRow& r) { return util::optional_cell(r.matmul_flops); }},
  };
  return columns;
}

ProfileRow row_of(amp::PrecisionMode mode, const char* row, const ModeProfile& p, double seconds,
                  std::optional<double> ratio) {
  ProfileRow r{mode, row, "", "", "", seconds, step_share(p, seconds), ratio, nullptr, std::nullopt};
  return r;
}

void add_op_rows(amp::PrecisionMode mode, const char* row, const ModeProfile& p,
                 const std::vector<OpTime>& ops, const ModeProfile* fp32, std::vector<ProfileRow>& out) {
  for (const auto& op : ops) {
    auto r = row_of(mode, row, p, op.seconds, op_ratio(op, fp32));
    r.phase = to_string(op.phase);
    r.op_class = to_string(op.op_class);
    r.op = op.name;
    r.op_time = &op;
    r.matmul_flops = op.matmul_flops;
    out.push_back(std::move(r));
  }
}

void add_mode_rows(amp::PrecisionMode mode, const ModeProfile& p, const ModeProfile* fp32,
                   std::vector<ProfileRow>& out) {
  for (const auto& c : p.classes) {
    auto r = row_of(mode, "class", p, c.seconds, class_ratio(p, fp32, c));
    r.phase = to_string(c.phase);
    r.op_class = to_string(c.op_class);
    out.push_back(std::move(r));
  }
  add_op_rows(mode, "op", p, p.top_ops, fp32, out);
  add_op_rows(mode, "fp32_in_autocast", p, p.precision.fp32_in_autocast, nullptr, out);
  const bool baseline = fp32 == &p || !fp32;
  auto ratio = [&](double value, double base) {
    return baseline || base <= 0 ? std::nullopt : std::optional(value / base);
  };
  out.push_back(row_of(mode, "overhead", p, p.overhead_seconds,
                       ratio(p.overhead_seconds, fp32 ? fp32->overhead_seconds : 0)));
  auto step = row_of(mode, "step", p, p.step_seconds, ratio(p.step_seconds, fp32 ? fp32->step_seconds : 0));
  step.matmul_flops = p.precision.matmul_flops;
  out.push_back(std::move(step));
}

}  // namespace

std::string to_profile_csv(const std::vector<ProfileRecord>& profiles) {
  std::vector<ProfileRow> rows;
  const auto* fp32 = fp32_profile(profiles);
  for (const auto& record : profiles) {
    if (record.profile) add_mode_rows(record.mode, *record.profile, fp32, rows);
  }
  return util::render_csv(profile_columns(), rows);
}

std::string profile_csv_columns() { return util::csv_header(profile_columns()); }

}  // namespace ampbench::profile
