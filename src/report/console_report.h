#pragma once

#include <string>

#include "report/report.h"

namespace ampbench::report {

// The summary a person reads at the end of a run: one aligned row per mode against fp32.
std::string to_console(const RunReport& report);

}  // namespace ampbench::report
