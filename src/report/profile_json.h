#pragma once

#include <nlohmann/json.hpp>

#include "train/experiment_result.h"

namespace ampbench::report {

// report.json's "profiles": per mode, where a profiled step's time went (by phase and op class, and by
// op), the precision audit and the framework overhead, with ratios to fp32's.
nlohmann::json profiles_json(const train::ExperimentResult& measured);

}  // namespace ampbench::report
