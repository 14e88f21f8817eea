#include "report/gates.h"

#include <algorithm>
#include <cstdio>

namespace ampbench::report {
namespace {

// `missing`: why the gate has no value, when it has none.
std::string describe(const GateResult& r, const char* relation, const char* missing) {
  char text[200];
  std::string mode(amp::to_string(r.mode));
  std::string gate(config::to_string(r.gate));
  if (!r.value) {
    std::snprintf(text, sizeof text, "%s %s: no value (%s)", mode.c_str(), gate.c_str(), missing);
  } else {
    std::snprintf(text, sizeof text, "%s %s: %.4g %s %.4g", mode.c_str(), gate.c_str(), *r.value,
                  r.passed ? relation : (relation[0] == '>' ? "<" : ">"), r.threshold);
  }
  return text;
}

// The summary figure a gate judges, and whether it must be at least (or at most) the threshold.
struct Judged {
  std::optional<double> ModeSummary::*field;
  bool at_least;
};

Judged judged_by(config::Gate gate) {
  switch (gate) {
    case config::Gate::min_speedup:
      return {&ModeSummary::speedup_vs_fp32, true};
    case config::Gate::max_val_loss_delta:
      return {&ModeSummary::val_loss_delta_vs_fp32, false};
    case config::Gate::max_memory_ratio:
      return {&ModeSummary::memory_ratio_vs_fp32, false};
    case config::Gate::min_low_precision_flop_share:
      return {&ModeSummary::low_precision_flop_share, true};
  }
  return {&ModeSummary::speedup_vs_fp32, true};
}

const ModeSummary* find_mode(const std::vector<ModeSummary>& summary, amp::PrecisionMode mode) {
  auto s =
      std::find_if(summary.begin(), summary.end(), [mode](const ModeSummary& m) { return m.mode == mode; });
  return s == summary.end() ? nullptr : &*s;
}

GateResult check_gate(config::Gate gate, amp::PrecisionMode mode, double threshold,
                      const std::vector<ModeSummary>& summary) {
  const auto [field, at_least] = judged_by(gate);
  GateResult r;
  r.gate = gate;
  r.mode = mode;
  r.threshold = threshold;
  const auto* s = find_mode(summary, mode);
  if (s) r.value = s->*field;
  r.passed = r.value && (at_least ? *r.value >= threshold : *r.value <= threshold);
  // Every gate compares with fp32, so a mode that finished has no value when fp32 did not.
  const char* missing = !s                                              ? "the mode did not finish"
                        : !find_mode(summary, amp::PrecisionMode::fp32) ? "fp32, the baseline, did not finish"
                        : s->emulated && gate == config::Gate::min_speedup
                            ? "its products were emulated here, so its time is not the format's speed"
                            : "not measured";
  r.message = describe(r, at_least ? ">=" : "<=", missing);
  return r;
}

}  // namespace

std::vector<GateResult> check_gates(const config::Gates& gates, const std::vector<ModeSummary>& summary) {
  std::vector<GateResult> results;
  for (const auto& [gate, thresholds] : gates) {
    for (const auto& [mode, threshold] : thresholds)
      results.push_back(check_gate(gate, mode, threshold, summary));
  }
  return results;
}

}  // namespace ampbench::report
