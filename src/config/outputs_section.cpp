#include "config/outputs_section.h"

#include <algorithm>

#include "config/precision_section.h"
#include "measure/device.h"
#include "util/enum_names.h"

namespace ampbench::config {
namespace {

using util::InputError;
using util::ObjectReader;

// The thresholds of one gate: {"bf16": 1.2, ...}, each mode one that runs.
std::map<amp::PrecisionMode, double> parse_thresholds(ObjectReader per_mode,
                                                      const std::vector<amp::PrecisionMode>& modes,
                                                      double min, double max) {
  std::map<amp::PrecisionMode, double> thresholds;
  for (const auto& name : per_mode.keys()) {
    const auto mode = mode_at(name, per_mode.path_of(name));
    if (std::find(modes.begin(), modes.end(), mode) == modes.end()) {
      throw InputError(per_mode.path_of(name), "mode \"" + name + "\" is not in /precision/modes");
    }
    thresholds[mode] = per_mode.number(name, 0.0, min, max);
  }
  per_mode.finish();
  return thresholds;
}

}  // namespace

std::string_view to_string(Gate gate) {
  static constexpr util::EnumNames<Gate, 4> kGateNames{
      {{Gate::min_speedup, "min_speedup"},
       {Gate::max_val_loss_delta, "max_val_loss_delta"},
       {Gate::max_memory_ratio, "max_memory_ratio"},
       {Gate::min_low_precision_flop_share, "min_low_precision_flop_share"}}};
  return util::name_of(kGateNames, gate);
}

ProfileConfig parse_profile(ObjectReader& root) {
  ProfileConfig out;
  if (!root.has("profile")) return out;
  ObjectReader profile = root.object("profile");
  out.steps = profile.integer("steps", ProfileConfig::kDefaultSteps, 1, 100'000);
  out.warmup_steps = profile.integer("warmup_steps", out.warmup_steps, 0, 100'000);
  profile.finish();
  return out;
}

NumericsConfig parse_numerics(ObjectReader& root) {
  NumericsConfig out;
  if (!root.has("numerics")) return out;
  ObjectReader numerics = root.object("numerics");
  out.steps = numerics.integer("steps", NumericsConfig::kDefaultSteps, 1, 10'000);
  numerics.finish();
  return out;
}

Gates parse_gates(ObjectReader gates, const std::vector<amp::PrecisionMode>& modes,
                  const std::string& device) {
  struct Range {
    Gate gate;
    double min, max;
  };
  Gates out;
  // The CPU by name or by "auto" on a machine without a GPU, as the run resolves it: the refusal below must
  // not depend on how the device was spelt.
  const bool on_the_cpu = device == "cpu" || (device == "auto" && measure::resolve_device(device).is_cpu());
  for (const auto& [gate, min, max] :
       {Range{Gate::min_speedup, 0.0, 1e6}, Range{Gate::max_val_loss_delta, -1e6, 1e6},
        Range{Gate::max_memory_ratio, 0.0, 1e6}, Range{Gate::min_low_precision_flop_share, 0.0, 1.0}}) {
    auto per_mode = gates.object(std::string(to_string(gate)));
    auto thresholds = parse_thresholds(per_mode, modes, min, max);
    for (const auto& [mode, threshold] : thresholds) {
      // An emulated mode's time is the emulation's cost: there is no speed of the format to gate on. The CPU
      // has no block-scaled kernels; on a GPU, the gate finds out after the run (report/gates.h).
      if (gate == Gate::min_speedup && amp::recipe_of(mode).emulated && on_the_cpu)
        throw InputError(per_mode.path_of(std::string(amp::to_string(mode))),
                         std::string(amp::to_string(mode)) +
                             " is emulated on the CPU: its time is the emulation's, not the format's, so no "
                             "speed-up is gated");
    }
    if (!thresholds.empty()) out[gate] = std::move(thresholds);
  }
  gates.finish();
  if (!out.empty() && std::find(modes.begin(), modes.end(), amp::PrecisionMode::fp32) == modes.end()) {
    throw InputError(gates.path(), "gates compare against fp32, which is not in /precision/modes");
  }
  return out;
}

std::map<amp::PrecisionMode, double> parse_peak_tflops(ObjectReader& root,
                                                       const std::vector<amp::PrecisionMode>& modes) {
  std::map<amp::PrecisionMode, double> out;
  if (!root.has("peak_tflops")) return out;
  if (root.is_number("peak_tflops")) {
    const double peak = root.number("peak_tflops", 0.0, 0.0, 1e9, true);
    for (auto mode : modes) out[mode] = peak;
    return out;
  }
  if (!root.is_object("peak_tflops")) {
    throw InputError(
        root.path_of("peak_tflops"),
        "expected a number (TFLOP/s for every mode) or per-mode numbers such as {\"bf16\": 989}");
  }
  ObjectReader per_mode = root.object("peak_tflops");
  for (const auto& name : per_mode.keys()) {
    out[mode_at(name, per_mode.path_of(name))] = per_mode.number(name, 0.0, 0.0, 1e9, true);
  }
  per_mode.finish();
  return out;
}

nlohmann::json gates_json(const Gates& gates) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [gate, thresholds] : gates) {
    for (const auto& [mode, value] : thresholds)
      out[std::string(to_string(gate))][std::string(amp::to_string(mode))] = value;
  }
  return out;
}

nlohmann::json peak_tflops_json(const std::map<amp::PrecisionMode, double>& peaks) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [mode, peak] : peaks) out[std::string(amp::to_string(mode))] = peak;
  return out;
}

std::string parse_output_dir(ObjectReader& root, const std::string& fallback) {
  ObjectReader output = root.object("output");
  auto dir = output.string("dir", fallback);
  output.finish();
  return dir;
}

nlohmann::json profile_json(const ProfileConfig& profile) {
  return profile.enabled() ? nlohmann::json{{"steps", profile.steps}, {"warmup_steps", profile.warmup_steps}}
                           : nlohmann::json();
}

nlohmann::json numerics_json(const NumericsConfig& numerics) {
  return numerics.enabled() ? nlohmann::json{{"steps", numerics.steps}} : nlohmann::json();
}

}  // namespace ampbench::config
