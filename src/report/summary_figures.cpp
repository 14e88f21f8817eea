#include "report/summary_figures.h"

namespace ampbench::report {

SummaryFigures figures_of(const ModeSummary& s) {
  std::vector<double> rates;
  for (const auto& trial : s.trials_compared) rates.push_back(trial.samples_per_second);
  return {s.mode,
          static_cast<int64_t>(s.trials_compared.size()),
          s.samples_per_second.median,
          measure::bootstrap_median(rates),
          s.speedup_vs_fp32,
          s.speedup_interval,
          s.peak_bytes,
          s.activation_bytes,
          s.fidelity.verdict,
          rates};
}

}  // namespace ampbench::report
