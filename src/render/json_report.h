#pragma once

#include <nlohmann/json.hpp>

#include "report/report.h"

namespace ampbench::report {

// The lossless report: schema_version, the resolved config, the environment, every mode's epochs and
// memory, and the summary against fp32. Undefined values are null.
nlohmann::json to_json(const RunReport& report);

}  // namespace ampbench::report
