#pragma once

#include <map>
#include <string>
#include <vector>

#include "amp/precision_mode.h"
#include "report/report.h"

namespace ampbench::report {

// Thresholds a CI job gates on, per mode, against fp32 (config key "gates").
struct Gates {
  std::map<amp::PrecisionMode, double> min_speedup;         // speed-up >= this
  std::map<amp::PrecisionMode, double> max_val_loss_delta;  // val loss - fp32's <= this
  std::map<amp::PrecisionMode, double> max_memory_ratio;    // peak memory / fp32's <= this

  bool empty() const { return min_speedup.empty() && max_val_loss_delta.empty() && max_memory_ratio.empty(); }
};

// Checks every gate against the summary. A pure function.
std::vector<GateResult> check_gates(const Gates& gates, const std::vector<ModeSummary>& summary);

}  // namespace ampbench::report
