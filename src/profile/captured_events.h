#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "measure/cpu_usage.h"

namespace ampbench::profile {

// The part of a training step an operator ran in.
enum class Phase { forward, backward, optimizer, other };
inline constexpr int kPhases = 4;
std::string_view to_string(Phase phase);

// A host-side operator as the profiler recorded it (one dispatch: an op called inside another nests
// within it on the same thread).
struct OpEvent {
  std::string name;  // "aten::addmm"
  uint64_t thread = 0;
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  std::vector<std::string> dtypes;           // per input, "" or "Scalar" where it is no tensor
  std::vector<std::vector<int64_t>> shapes;  // per input, empty where it is no tensor
  double flops = 0;                          // the profiler's count for ops it knows (mm, conv2d, ...)
  uint64_t correlation_id = 0;               // links the device kernels it launched
};

// Work on the device (a kernel, a copy or a memset), linked to the host operator that launched it.
struct DeviceEvent {
  int64_t duration_ns = 0;
  uint64_t op_correlation_id = 0;
};

struct Span {
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  bool contains(int64_t t) const { return start_ns <= t && t < end_ns; }
  int64_t length() const { return end_ns - start_ns; }
};

// Everything one profiled pass recorded, in the profiler's clock.
struct CapturedEvents {
  std::vector<OpEvent> ops;
  std::vector<DeviceEvent> device;  // empty on the CPU: there an op's time is its host time
  std::vector<std::pair<Phase, Span>> phases;
  std::vector<Span> steps;  // each profiled step, from its start to its end on the device
  // What the process got of the CPU over the profiled steps, sampled before the first and after the last.
  std::optional<measure::CpuUsage> cpu;
  bool device_time() const { return !device.empty(); }
};

}  // namespace ampbench::profile
