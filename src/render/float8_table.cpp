#include "render/float8_table.h"

#include <sstream>
#include <utility>
#include <vector>

namespace ampbench::report {

namespace {

// Each fp8 mode's first finished timed trial that recorded its layers.
std::vector<const train::TrialRecord*> float8_trials(const RunReport& report) {
  std::vector<const train::TrialRecord*> out;
  for (const auto& t : report.measured.trials) {
    if (!t.finished() || !t.float8) continue;
    bool seen = false;
    for (const auto* o : out) seen = seen || o->mode == t.mode;
    if (!seen) out.push_back(&t);
  }
  return out;
}

std::string range_text(const std::optional<train::AmaxRange>& range) {
  if (!range) return "-";
  if (range->min == range->max) return util::format_number("%.4g", range->max);
  return util::format_number("%.4g", range->min) + " - " + util::format_number("%.4g", range->max);
}

// "; 0.98x bf16's samples/s [0.951, 1.01]", when bf16 ran beside the mode.
std::string against_bf16(const RunReport& report, amp::PrecisionMode mode) {
  for (const auto& s : report.summary) {
    if (s.mode != mode || !s.speedup_vs_bf16) continue;
    // Three significant digits: a CPU's fp8 runs at thousandths of bf16's speed, which %.2f shows as 0.
    std::string out = util::format_number("; %.3gx bf16's samples/s", *s.speedup_vs_bf16);
    if (const auto& i = s.speedup_vs_bf16_interval)
      out += " [" + util::format_number("%.3g", i->low) + ", " + util::format_number("%.3g", i->high) + "]";
    return out;
  }
  return "";
}

std::string shape_text(const train::Float8LayerSummary& layer) {
  return std::to_string(layer.in_features) + " -> " + std::to_string(layer.out_features);
}

}  // namespace

util::TextRows float8_layers_table(const RunReport& report) {
  const auto trials = float8_trials(report);
  if (trials.empty()) return {};
  util::TextRows rows{{"mode", "recipe", "layer", "in -> out", "float8 calls", "bf16 calls", "input amax",
                       "weight amax", "grad amax"}};
  for (const auto* t : trials) {
    for (const auto& layer : t->float8->layers) {
      const std::string bf16 =
          std::to_string(layer.bf16_calls) + (layer.bf16_why ? " (" + *layer.bf16_why + ")" : "");
      rows.push_back({std::string(amp::to_string(t->mode)), t->float8->recipe, layer.name, shape_text(layer),
                      std::to_string(layer.float8_calls), bf16, range_text(layer.input_amax),
                      range_text(layer.weight_amax), range_text(layer.grad_output_amax)});
    }
  }
  return rows;
}

std::string float8_footnote(const RunReport& report) {
  std::ostringstream out;
  for (const auto* t : float8_trials(report)) {
    const auto& layers = t->float8->layers;
    std::vector<std::string> left;
    for (const auto& layer : layers) {
      if (layer.bf16_calls > 0) left.push_back(layer.name + " (" + layer.bf16_why.value_or("") + ")");
    }
    const bool float4 = amp::recipe_of(t->mode).arithmetic == amp::MatrixArithmetic::fp4;
    out << amp::to_string(t->mode) << " (" << t->float8->recipe
        << " scaling): " << layers.size() - left.size() << " of " << layers.size() << " linear layers in "
        << (float4 ? "float4" : "float8");
    for (size_t i = 0; i < left.size(); ++i) out << (i == 0 ? "; left in bf16: " : ", ") << left[i];
    out << against_bf16(report, t->mode) << "\n";
  }
  return out.str();
}

}  // namespace ampbench::report
