#pragma once

#include <string>

#include "report/report.h"
#include "util/text_table.h"

namespace ampbench::report {

// The pure bf16 modes beside fp32 and mixed bf16: per mode its static memory (as the allocator held it
// after the first optimizer step) and its ratio to fp32's and bf16's, samples/s against bf16's with the
// interval, the share of audited weight updates lost to rounding, and the fidelity verdict. Header first;
// empty when no pure bf16 mode finished a trial.
util::TextRows pure_bf16_table(const RunReport& report);

// What the table's memory and lost-update figures are and how they were taken, in a line; empty with
// the table.
std::string pure_bf16_footnote(const RunReport& report);

}  // namespace ampbench::report
