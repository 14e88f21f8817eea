#include "profile/profile_tables.h"

#include <cstdio>
#include <sstream>

#include "profile/profile_view.h"

namespace ampbench::profile {
namespace {

std::string ms(double seconds) { return util::format_number("%.3f", seconds * 1e3); }
std::string percent(const std::optional<double>& share) {
  return share ? util::format_number("%.1f%%", 100 * *share) : "-";
}
std::string times(const std::optional<double>& ratio) {
  return ratio ? util::format_number("%.2fx", *ratio) : "-";
}

// The profiles that finished, in the order they ran.
std::vector<std::pair<amp::PrecisionMode, const ModeProfile*>> finished(
    const std::vector<ProfileRecord>& profiles) {
  std::vector<std::pair<amp::PrecisionMode, const ModeProfile*>> out;
  for (const auto& p : profiles) {
    if (p.profile) out.emplace_back(p.mode, &*p.profile);
  }
  return out;
}

double seconds_of(const ModeProfile& p, Phase phase, OpClass op_class) {
  for (const auto& c : p.classes) {
    if (c.phase == phase && c.op_class == op_class) return c.seconds;
  }
  return 0;
}

std::vector<std::string> class_header(const std::vector<ProfileRecord>& profiles) {
  std::vector<std::string> header{"phase", "op class"};
  for (const auto& [mode, p] : finished(profiles)) {
    const std::string name(amp::to_string(mode));
    header.push_back(name + " ms");
    header.push_back(name + " share");
    if (mode != amp::PrecisionMode::fp32) header.push_back(name + " vs fp32");
  }
  return header;
}

// A time against fp32's, shown only where fp32's own time is worth a row (kMinRowShare of its step):
// against a near-zero base ("cast 743.45x" where fp32 spent 0.003 ms) a ratio says nothing.
std::optional<double> shown_ratio(double seconds, std::optional<double> base, const ModeProfile* fp32) {
  if (!fp32 || !base) return std::nullopt;
  const auto share = step_share(*fp32, *base);
  if (!share || *share < kMinRowShare) return std::nullopt;
  return seconds / *base;
}

// One row of figures: `seconds` picks a mode's time, `base` fp32's (for the ratio).
template <typename Seconds>
std::vector<std::string> class_row(const std::vector<ProfileRecord>& profiles, std::string phase,
                                   std::string name, Seconds seconds) {
  const auto* fp32 = fp32_profile(profiles);
  std::vector<std::string> row{std::move(phase), std::move(name)};
  for (const auto& [mode, p] : finished(profiles)) {
    const double s = seconds(*p);
    row.push_back(ms(s));
    row.push_back(percent(step_share(*p, s)));
    if (mode == amp::PrecisionMode::fp32) continue;
    row.push_back(times(shown_ratio(s, fp32 ? std::optional(seconds(*fp32)) : std::nullopt, fp32)));
  }
  return row;
}

bool worth_a_row(const std::vector<ProfileRecord>& profiles, Phase phase, OpClass op_class) {
  for (const auto& [mode, p] : finished(profiles)) {
    const auto share = step_share(*p, seconds_of(*p, phase, op_class));
    if (share && *share >= kMinRowShare) return true;
  }
  return false;
}

// "[128, 512] [512]": tensor shapes as the trace shows them.
std::string shapes_text(const std::vector<std::vector<int64_t>>& shapes) {
  std::vector<std::string> items;
  for (const auto& shape : shapes)
    items.push_back(std::string(1, '[').append(util::join_sizes(shape, ", ")).append("]"));
  return util::join(items, " ");
}

// "c10::BFloat16" reads as "bf16" in a table.
std::string dtype_text(const std::string& dtype) {
  if (dtype == "c10::BFloat16") return "bf16";
  if (dtype == "c10::Half") return "fp16";
  if (dtype == "float") return "fp32";
  if (dtype == "double") return "fp64";
  if (dtype == "long int") return "int64";
  return dtype;
}

std::string dtypes_text(const std::vector<std::string>& dtypes) {
  std::vector<std::string> names;
  for (const auto& d : dtypes) names.push_back(dtype_text(d));
  return util::join(names, ",");
}

}  // namespace

util::TextRows time_by_class_table(const std::vector<ProfileRecord>& profiles) {
  if (finished(profiles).empty()) return {};
  util::TextRows rows{class_header(profiles)};
  for (int phase = 0; phase < kPhases; ++phase) {
    for (int c = 0; c < kOpClasses; ++c) {
      const auto ph = Phase(phase);
      const auto op_class = OpClass(c);
      if (!worth_a_row(profiles, ph, op_class)) continue;
      rows.push_back(class_row(profiles, std::string(to_string(ph)), std::string(to_string(op_class)),
                               [&](const ModeProfile& p) { return seconds_of(p, ph, op_class); }));
    }
  }
  rows.push_back(class_row(profiles, "-", "framework overhead",
                           [](const ModeProfile& p) { return p.overhead_seconds; }));
  rows.push_back(class_row(profiles, "-", "step", [](const ModeProfile& p) { return p.step_seconds; }));
  return rows;
}

util::TextRows top_ops_table(const std::vector<ProfileRecord>& profiles, size_t per_mode) {
  if (finished(profiles).empty()) return {};
  const auto* fp32 = fp32_profile(profiles);
  util::TextRows rows{{"mode", "op", "phase", "dtypes", "shapes", "calls", "ms", "share", "vs fp32"}};
  for (const auto& [mode, p] : finished(profiles)) {
    for (size_t i = 0; i < std::min(per_mode, p->top_ops.size()); ++i) {
      const auto& op = p->top_ops[i];
      rows.push_back({std::string(amp::to_string(mode)), op.name, std::string(to_string(op.phase)),
                      dtypes_text(op.dtypes), shapes_text(op.shapes), util::format_number("%.0f", op.calls),
                      ms(op.seconds), percent(step_share(*p, op.seconds)),
                      times(shown_ratio(op.seconds, fp32_op_seconds(op, fp32), fp32))});
    }
  }
  return rows;
}

util::TextRows precision_audit_table(const std::vector<ProfileRecord>& profiles) {
  if (finished(profiles).empty()) return {};
  util::TextRows rows{{"mode", "matrix FLOPs in 16-bit or float8", "in float8",
                       "fp32 matrix ops under autocast", "casts", "cast MiB", "framework overhead",
                       "pass took", "trace"}};
  for (const auto& record : profiles) {
    if (!record.profile) continue;
    const auto mode = record.mode;
    const auto* p = &*record.profile;
    const auto& a = p->precision;
    const bool autocast = amp::recipe_of(mode).autocast.has_value();
    rows.push_back(
        {std::string(amp::to_string(mode)), percent(a.low_precision_flop_share), percent(a.float8_flop_share),
         autocast ? std::to_string(a.fp32_in_autocast.size()) + " (" +
                        percent(step_share(*p, a.fp32_in_autocast_seconds)) + ")"
                  : "-",
         percent(step_share(*p, a.cast_seconds)),
         util::format_number("%.1f", a.cast_bytes / (1024.0 * 1024.0)),
         percent(step_share(*p, p->overhead_seconds)), util::format_number("%.1f s", record.wall_seconds),
         p->trace_file.empty() ? "-" : p->trace_file});
  }
  return rows;
}

std::string profile_footnote(const std::vector<ProfileRecord>& profiles) {
  const auto shown = finished(profiles);
  if (shown.empty()) return "";
  const auto& first = *shown.front().second;
  std::ostringstream out;
  out << "profiled pass after the timed trials (none of its steps is in a timed figure): " << first.steps
      << " steps after " << first.warmup_steps << " warm-up, per step; op times are "
      << (first.device_time ? "their kernels' on the device" : "host times of each op less the ops it called")
      << "; share: of the profiled step; framework overhead: step - ops; rows under "
      << util::format_number("%.1f", 100 * kMinRowShare)
      << "% of the step in every mode left out (all in report.json and "
      << "profile.csv); matrix FLOPs: products, convolutions and attention, counted once per op";
  // A stopped pass's figures are the mean of fewer steps: say whose.
  for (const auto& p : profiles) {
    if (p.stopped && p.profile) out << "; " << amp::to_string(p.mode) << "'s pass " << *p.stopped;
  }
  return out.str();
}

}  // namespace ampbench::profile
