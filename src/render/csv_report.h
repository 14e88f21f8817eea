#pragma once

#include <string>

#include "report/report.h"

namespace ampbench::report {

// Tidy CSV: one row per trial x epoch, and one row with empty epoch cells for a trial that finished no
// epoch (skipped, or stopped in its first), its status and detail saying why; an undefined value is an
// empty cell, never 0. The timed trials first (purpose "timed"), then the fidelity trials (purpose
// "fidelity", trial = the seed's index); seed is each trial's.
std::string to_csv(const RunReport& report);

// One row per summarised mode: every figure of its summary (report/summary_fields.h), each verdict beside
// the figures it was judged on, for spreadsheets and CI jobs (summary.csv in the run folder).
std::string to_summary_csv(const RunReport& report);

}  // namespace ampbench::report
