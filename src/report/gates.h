#pragma once

#include <vector>

#include "config/experiment_config.h"
#include "report/report.h"

namespace ampbench::report {

// Checks every configured gate against the summary. A pure function.
std::vector<GateResult> check_gates(const config::Gates& gates, const std::vector<ModeSummary>& summary);

}  // namespace ampbench::report
