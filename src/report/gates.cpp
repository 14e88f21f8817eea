#include "report/gates.h"

#include <algorithm>
#include <cstdio>

namespace ampbench::report {
namespace {

// `missing`: why the gate has no value, when it has none.
std::string describe(const GateResult& r, const char* relation, const char* missing) {
  char text[200];
  std::string mode(amp::to_string(r.mode));
  if (!r.value) {
    std::snprintf(text, sizeof text, "%s %s: no value (%s)", mode.c_str(), r.gate.c_str(), missing);
  } else {
    std::snprintf(text, sizeof text, "%s %s: %.4g %s %.4g", mode.c_str(), r.gate.c_str(), *r.value,
                  r.passed ? relation : (relation[0] == '>' ? "<" : ">"), r.threshold);
  }
  return text;
}

}  // namespace

std::vector<GateResult> check_gates(const Gates& gates, const std::vector<ModeSummary>& summary) {
  auto finished = [&summary](amp::PrecisionMode mode) {
    return std::any_of(summary.begin(), summary.end(),
                       [mode](const ModeSummary& m) { return m.mode == mode; });
  };
  std::vector<GateResult> results;
  auto check = [&](const char* name, const std::map<amp::PrecisionMode, double>& thresholds, bool at_least,
                   std::optional<double> ModeSummary::*field) {
    for (const auto& [mode, threshold] : thresholds) {
      GateResult r;
      r.gate = name;
      r.mode = mode;
      r.threshold = threshold;
      auto s = std::find_if(summary.begin(), summary.end(),
                            [&, wanted = mode](const ModeSummary& m) { return m.mode == wanted; });
      if (s != summary.end()) r.value = (*s).*field;
      r.passed = r.value && (at_least ? *r.value >= threshold : *r.value <= threshold);
      // Every gate compares with fp32, so a mode that finished has no value when fp32 did not.
      const char* missing = !finished(mode)                       ? "the mode did not finish"
                            : !finished(amp::PrecisionMode::fp32) ? "fp32, the baseline, did not finish"
                                                                  : "not measured";
      r.message = describe(r, at_least ? ">=" : "<=", missing);
      results.push_back(r);
    }
  };
  check("min_speedup", gates.min_speedup, true, &ModeSummary::speedup_vs_fp32);
  check("max_val_loss_delta", gates.max_val_loss_delta, false, &ModeSummary::val_loss_delta_vs_fp32);
  check("max_memory_ratio", gates.max_memory_ratio, false, &ModeSummary::memory_ratio_vs_fp32);
  return results;
}

}  // namespace ampbench::report
