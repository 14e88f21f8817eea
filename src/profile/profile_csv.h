#pragma once

#include <string>
#include <vector>

#include "profile/profile_record.h"

namespace ampbench::profile {

// The profiled pass, tidy (profile.csv in the run folder, when there is one): per mode, a row per
// (phase, op class), per top op and per fp32 matrix op under autocast, then the framework overhead and
// the step; times are seconds per profiled step, share of the step, ratio to fp32's.
std::string to_profile_csv(const std::vector<ProfileRecord>& profiles);
std::string profile_csv_columns();

}  // namespace ampbench::profile
