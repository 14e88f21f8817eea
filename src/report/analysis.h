#pragma once

#include "report/report.h"

namespace ampbench::report {

// The one analysis step of a run, after each trial and at its end: the summary against fp32, the
// warnings, and, once every trial has finished, the gates' verdicts. A pure function.
RunReport analyse(const RunContext& context, const train::ExperimentResult& measured);

}  // namespace ampbench::report
