#pragma once

#include <vector>

#include "report/report.h"

namespace ampbench::report {

// What a reader should be told about one mode's times (part of find_warnings): a mode far slower than fp32
// (with the profiled op that costs it most), samples/s that vary much, outlying epochs (MAD-based), and
// epochs whose threads waited for a CPU.
void speed_warnings(const RunReport& report, const ModeSummary& s, std::vector<Warning>& out);

}  // namespace ampbench::report
