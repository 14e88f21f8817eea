#pragma once

#include <string>
#include <vector>

#include "profile/profile_record.h"
#include "util/text_table.h"

namespace ampbench::profile {

// "Where the time went": the profiled pass as text cells, header first, for the console and Markdown.
// Empty when the run had no profiled pass.

// Per (phase, op class), each profiled mode's ms per step, share of the step and ratio to fp32; then the
// framework overhead and the whole step. Rows under kMinRowShare of the step in every mode are left out.
util::TextRows time_by_class_table(const std::vector<ProfileRecord>& profiles);
// Each mode's most expensive ops by own time, with their input dtypes and shapes and the ratio to fp32's.
util::TextRows top_ops_table(const std::vector<ProfileRecord>& profiles, size_t per_mode);
// Per mode: the share of matrix FLOPs in 16-bit, fp32 matrix ops under autocast, casts, and the trace.
util::TextRows precision_audit_table(const std::vector<ProfileRecord>& profiles);
// What the tables' figures are (steps, clock, what was left out).
std::string profile_footnote(const std::vector<ProfileRecord>& profiles);

inline constexpr double kMinRowShare = 0.005;
inline constexpr size_t kTopOpsShown = 5;

}  // namespace ampbench::profile
