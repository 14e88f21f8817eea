#include "train/fault_injection.h"

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

}  // namespace ampbench::train
