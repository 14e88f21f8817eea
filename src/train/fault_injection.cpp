#include "train/fault_injection.h"

#include <algorithm>
#include <charconv>

namespace ampbench::train {

std::optional<FaultInjection> parse_fault_injection(std::string_view spec) {
  auto first = spec.find(':');
  auto second = first == std::string_view::npos ? first : spec.find(':', first + 1);
  if (second == std::string_view::npos) return std::nullopt;
  FaultInjection fault;
  auto kind = spec.substr(0, first);
  if (kind == "nan") {
    fault.kind = FaultInjection::Kind::nan;
  } else if (kind == "oom") {
    fault.kind = FaultInjection::Kind::oom;
  } else if (kind == "error") {
    fault.kind = FaultInjection::Kind::error;
  } else if (kind == "sigint") {
    fault.kind = FaultInjection::Kind::sigint;
  } else if (kind == "sigterm") {
    fault.kind = FaultInjection::Kind::sigterm;
  } else {
    return std::nullopt;
  }
  auto mode = amp::parse_precision_mode(spec.substr(first + 1, second - first - 1));
  if (!mode) return std::nullopt;
  fault.mode = *mode;
  auto step = spec.substr(second + 1);
  auto [end, error] = std::from_chars(step.data(), step.data() + step.size(), fault.step);
  if (error != std::errc() || end != step.data() + step.size() || fault.step < 1) return std::nullopt;
  return fault;
}

std::optional<std::string> why_fault_misses(const FaultInjection& fault,
                                            const std::vector<amp::PrecisionMode>& modes,
                                            int64_t steps_per_trial) {
  if (std::find(modes.begin(), modes.end(), fault.mode) == modes.end()) {
    return "mode " + std::string(amp::to_string(fault.mode)) + " is not among the modes that run here";
  }
  if (fault.step > steps_per_trial) {
    return "step " + std::to_string(fault.step) + " is past a trial's last step (" +
           std::to_string(steps_per_trial) + ")";
  }
  return std::nullopt;
}

}  // namespace ampbench::train
