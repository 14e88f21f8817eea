#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "amp/precision_mode.h"
#include "util/json_reader.h"

// What a run reports beyond its trials' figures, and where: the config's "profile", "numerics", "gates",
// "peak_tflops" and "output"; the defaults are the structs'.
namespace ampbench::config {

// The profiled pass ("profile" in the config, or --profile): after the timed trials, each mode trains
// warmup_steps untimed steps and then `steps` steps under the profiler, from the same initial weights and
// batches as its trials. Absent: no profiled pass.
struct ProfileConfig {
  int64_t steps = 0;  // 0: off
  int64_t warmup_steps = 3;
  static constexpr int64_t kDefaultSteps = 10;
  bool enabled() const { return steps > 0; }
};

// The numerics pass ("numerics" in the config, or --numerics): after the timed trials, each 16-bit mode
// replays its trial with `steps` optimizer steps, spread over it, measured against its format's range.
// Absent: none.
struct NumericsConfig {
  int64_t steps = 0;  // 0: off
  static constexpr int64_t kDefaultSteps = 4;
  bool enabled() const { return steps > 0; }
};

// The thresholds a CI job can gate on, each a figure of a mode against fp32 (config key "gates").
enum class Gate {
  min_speedup,         // speed-up >= the threshold
  max_val_loss_delta,  // val loss - fp32's <= the threshold
  max_memory_ratio,    // peak memory / fp32's <= the threshold
  // The profiled pass's share of matrix FLOPs that ran in 16-bit >= the threshold (needs "profile")
  min_low_precision_flop_share,
};
std::string_view to_string(Gate gate);

// Per gate, the threshold of each mode it is set for.
using Gates = std::map<Gate, std::map<amp::PrecisionMode, double>>;

// "profile": {"steps": 10, "warmup_steps": 3}; present, even empty, turns the profiled pass on.
ProfileConfig parse_profile(util::ObjectReader& root);
// "numerics": {"steps": 4}; present, even empty, turns the numerics pass on.
NumericsConfig parse_numerics(util::ObjectReader& root);
// "gates": {"min_speedup": {"bf16": 1.2}, ...}, each mode one of `modes`, which must hold fp32. On the
// `device` "cpu", where a block-scaled mode is always emulated, min_speedup is refused for it.
Gates parse_gates(util::ObjectReader gates, const std::vector<amp::PrecisionMode>& modes,
                  const std::string& device);
// "peak_tflops": 989 (every mode) or {"bf16": 989, "fp32": 66.9}.
std::map<amp::PrecisionMode, double> parse_peak_tflops(util::ObjectReader& root,
                                                       const std::vector<amp::PrecisionMode>& modes);
// "output": {"dir": ...}, the folder run folders are made in.
std::string parse_output_dir(util::ObjectReader& root, const std::string& fallback);

// Each as the resolved config writes it.
nlohmann::json profile_json(const ProfileConfig& profile);
nlohmann::json numerics_json(const NumericsConfig& numerics);
nlohmann::json gates_json(const Gates& gates);
nlohmann::json peak_tflops_json(const std::map<amp::PrecisionMode, double>& peaks);

}  // namespace ampbench::config
