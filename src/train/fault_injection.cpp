#include "train/fault_injection.h"

#include <algorithm>
#include <charconv>

#include "amp/float8_linear.h"
#include "train/stop_request.h"

namespace ampbench::train {

namespace {

// The whole of `text` as an integer of at least 1.
bool parse_positive(std::string_view text, int64_t& value) {
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  return error == std::errc() && end == text.data() + text.size() && value >= 1;
}

}  // namespace

std::optional<FaultInjection> parse_fault_injection(std::string_view spec) {
  auto first = spec.find(':');
  auto second = first == std::string_view::npos ? first : spec.find(':', first + 1);
  if (second == std::string_view::npos) return std::nullopt;
  FaultInjection fault;
  auto kind = spec.substr(0, first);
  if (kind == "nan") {
    fault.kind = FaultInjection::Kind::nan;
  } else if (kind == "flaky") {
    fault.kind = FaultInjection::Kind::flaky_nan;
  } else if (kind == "overflow") {
    fault.kind = FaultInjection::Kind::overflow;
  } else if (kind == "nangrad") {
    fault.kind = FaultInjection::Kind::nan_gradient;
  } else if (kind == "oom") {
    fault.kind = FaultInjection::Kind::oom;
  } else if (kind == "error") {
    fault.kind = FaultInjection::Kind::error;
  } else if (kind == "exception") {
    fault.kind = FaultInjection::Kind::exception;
  } else if (auto signal = StopRequest::signal_named(kind)) {
    fault.kind = FaultInjection::Kind::stop_signal;
    fault.signal = *signal;
  } else if (kind == "sigstop") {
    fault.kind = FaultInjection::Kind::sigstop;
  } else if (kind == "slow") {
    fault.kind = FaultInjection::Kind::slow;
  } else if (kind == "fp8scale") {
    fault.kind = FaultInjection::Kind::fp8_scale;
  } else {
    return std::nullopt;
  }
  auto mode = amp::parse_precision_mode(spec.substr(first + 1, second - first - 1));
  if (!mode) return std::nullopt;
  fault.mode = *mode;
  auto third = spec.find(':', second + 1);
  auto step = spec.substr(second + 1, third == std::string_view::npos ? third : third - second - 1);
  if (!parse_positive(step, fault.step)) return std::nullopt;
  if (third != std::string_view::npos && !parse_positive(spec.substr(third + 1), fault.trial))
    return std::nullopt;
  return fault;
}

bool fires_at(const FaultInjection& fault, amp::PrecisionMode mode, int64_t trial, int64_t global_step) {
  using Kind = FaultInjection::Kind;
  const bool from_then_on = fault.kind == Kind::slow || fault.kind == Kind::fp8_scale;
  const bool at_step = from_then_on ? global_step >= fault.step : global_step == fault.step;
  return at_step && fault.mode == mode && (fault.trial == 0 || fault.trial == trial);
}

bool replayed(const FaultInjection& fault) {
  using Kind = FaultInjection::Kind;
  return fault.kind == Kind::nan || fault.kind == Kind::overflow || fault.kind == Kind::nan_gradient ||
         fault.kind == Kind::fp8_scale;
}

std::optional<std::string> why_fault_misses(const FaultInjection& fault,
                                            const std::vector<amp::PrecisionMode>& modes,
                                            int64_t steps_per_trial, int64_t repeats) {
  if (std::find(modes.begin(), modes.end(), fault.mode) == modes.end()) {
    return "mode " + std::string(amp::to_string(fault.mode)) + " is not among the modes that run here";
  }
  if (fault.kind == FaultInjection::Kind::fp8_scale && !amp::recipe_of(fault.mode).linear_recipe) {
    return "mode " + std::string(amp::to_string(fault.mode)) + " has no float8 scales";
  }
  if (fault.step > steps_per_trial) {
    return "step " + std::to_string(fault.step) + " is past a trial's last step (" +
           std::to_string(steps_per_trial) + ")";
  }
  if (fault.trial > repeats) {
    return "trial " + std::to_string(fault.trial) + " is past the last trial of each mode (" +
           std::to_string(repeats) + ")";
  }
  return std::nullopt;
}

}  // namespace ampbench::train
