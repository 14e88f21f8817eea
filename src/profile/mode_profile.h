#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "profile/attributed_op.h"
#include "profile/captured_events.h"
#include "profile/op_class.h"

namespace ampbench::profile {

// Times are per profiled step (the mean over the steps), in seconds.

struct ClassTime {
  Phase phase = Phase::other;
  OpClass op_class = OpClass::other;
  double seconds = 0;
};

// One operator, aggregated over its calls with the same phase, input dtypes and shapes.
struct OpTime {
  std::string name;
  Phase phase = Phase::other;
  OpClass op_class = OpClass::other;
  std::vector<std::string> dtypes;
  std::vector<std::vector<int64_t>> shapes;
  double calls = 0;
  double seconds = 0;  // own time (for an fp32 op inside autocast: with the ops it called)
  double matmul_flops = 0;
};

// Was the precision applied: how much of the matrix work ran in 16-bit or float8, what ran in fp32 under
// autocast, and what the casts cost.
struct PrecisionAudit {
  double matmul_flops = 0;         // matrix products, convolutions and attention, forward and backward
  double low_precision_flops = 0;  // in fp16, bf16 or float8
  std::optional<double> low_precision_flop_share;  // empty without matrix FLOPs
  double float8_flops = 0;                         // of those, in float8 (the fp8 modes' linear layers)
  std::optional<double> float8_flop_share;         // empty without matrix FLOPs
  std::vector<OpTime> fp32_in_autocast;            // 16-bit modes: forward matrix ops whose inputs were fp32
  double fp32_in_autocast_seconds = 0;
  double cast_seconds = 0;
  double cast_bytes = 0;  // written by copies into another dtype
};

struct ModeProfile {
  int64_t steps = 0;
  int64_t warmup_steps = 0;
  bool device_time = false;        // op times are their kernels' on the device (CUDA), else host times
  double step_seconds = 0;         // wall time of a profiled step
  double op_seconds = 0;           // the ops' own times: what the classes add up to
  double overhead_seconds = 0;     // step - ops: the framework's own work between and around them
  std::vector<ClassTime> classes;  // (phase, class) pairs that took time, in phase then class order
  std::vector<OpTime> top_ops;     // the most expensive by own time, at most kTopOps
  PrecisionAudit precision;
  std::string trace_file;  // the Chrome trace in the run folder; empty when it could not be written
  // What the process got of the CPU over the profiled steps (a wait for a CPU is in the op times too).
  std::optional<measure::CpuUsage> cpu;
};
inline constexpr size_t kTopOps = 20;

// Sums the attributed ops of `events` into per-step figures. `autocast`: the mode ran under autocast, so
// fp32 matrix work in its forward pass is reported.
ModeProfile summarize_profile(const CapturedEvents& events, const std::vector<AttributedOp>& ops,
                              bool autocast);

}  // namespace ampbench::profile
