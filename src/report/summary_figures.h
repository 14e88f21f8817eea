#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "amp/precision_mode.h"
#include "measure/statistics.h"
#include "report/report.h"

namespace ampbench::report {

// A mode's headline figures as its run's report gives them (report.json's summary), beside an interval
// for the throughput: a point of a sweep, a mode's run at its largest batch.
struct SummaryFigures {
  amp::PrecisionMode mode = amp::PrecisionMode::fp32;
  // Its products were emulated (ModeSummary::emulated): its time is the emulation's, no speed of the format.
  bool emulated = false;
  int64_t trials = 0;                        // timed trials that finished
  std::optional<double> samples_per_second;  // the summary's median
  std::optional<measure::Interval>
      throughput_interval;  // 95 % bootstrap of the median over the trials' rates
  std::optional<double> speedup_vs_fp32;
  std::optional<measure::Interval> speedup_interval;
  int64_t peak_bytes = 0;
  std::optional<int64_t> activation_bytes;
  std::optional<FidelityVerdict> fidelity;
  std::vector<double> trial_rates;  // each timed trial's samples/s (summary trials_compared)
};

// A mode's figures from its summary in a run's report.
SummaryFigures figures_of(const ModeSummary& summary);
// The same from a report.json's summary[] entry, as summary_fields.h writes it; throws
// nlohmann::json::exception or std::invalid_argument where the entry is not as ampbench writes it.
SummaryFigures figures_of(const nlohmann::json& summary);

}  // namespace ampbench::report
