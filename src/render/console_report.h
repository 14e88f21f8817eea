#pragma once

#include <string>

#include "report/report.h"

namespace ampbench::report {

// The summary a person reads at the end of a run: an aligned row per mode, then the warnings. With
// `colour`, speed-ups are green or red (for a terminal; never in files or CI logs).
std::string to_console(const RunReport& report, bool colour = false);

}  // namespace ampbench::report
