#pragma once

#include <vector>

#include <nlohmann/json.hpp>

#include "profile/profile_record.h"

namespace ampbench::profile {

// report.json's "profiles": per mode, where a profiled step's time went (by phase and op class, and by
// op), the precision audit and the framework overhead, with ratios to fp32's.
nlohmann::json profiles_json(const std::vector<ProfileRecord>& profiles);

}  // namespace ampbench::profile
