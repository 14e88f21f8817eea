#include "profile/mode_profile.h"

#include <algorithm>
#include <map>
#include <tuple>

namespace ampbench::profile {
namespace {

using OpKey = std::tuple<std::string, Phase, std::vector<std::string>, std::vector<std::vector<int64_t>>>;

OpKey key_of(const AttributedOp& op) { return {op.name, op.phase, op.tensor_dtypes, op.tensor_shapes}; }

// Aggregates ops by key; `time` picks which of an op's times counts. Sums are taken whole, then made
// per step, so that a count over the steps divides back exactly.
std::vector<OpTime> aggregate(const std::vector<const AttributedOp*>& ops, int64_t AttributedOp::*time,
                              double per_step) {
  struct Sum {
    OpTime op;
    int64_t calls = 0, ns = 0;
    double flops = 0;
  };
  std::map<OpKey, Sum> by_key;
  for (const auto* op : ops) {
    auto& sum = by_key[key_of(*op)];
    if (sum.calls++ == 0) sum.op = {op->name, op->phase, op->op_class, op->tensor_dtypes, op->tensor_shapes};
    sum.ns += op->*time;
    sum.flops += op->matmul_flops;
  }
  std::vector<OpTime> out;
  for (auto& [key, sum] : by_key) {
    sum.op.calls = double(sum.calls) * per_step;
    sum.op.seconds = double(sum.ns) * 1e-9 * per_step;
    sum.op.matmul_flops = sum.flops * per_step;
    out.push_back(std::move(sum.op));
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const OpTime& a, const OpTime& b) { return a.seconds > b.seconds; });
  return out;
}

std::vector<ClassTime> class_times(const std::vector<AttributedOp>& ops, double per_step) {
  double seconds[kPhases][kOpClasses] = {};
  for (const auto& op : ops) seconds[int(op.phase)][int(op.op_class)] += double(op.self_ns) * 1e-9 * per_step;
  std::vector<ClassTime> out;
  for (int p = 0; p < kPhases; ++p) {
    for (int c = 0; c < kOpClasses; ++c) {
      if (seconds[p][c] > 0) out.push_back({Phase(p), OpClass(c), seconds[p][c]});
    }
  }
  return out;
}

PrecisionAudit audit(const std::vector<AttributedOp>& ops, bool autocast, double per_step) {
  PrecisionAudit out;
  std::vector<const AttributedOp*> fp32_in_autocast;
  for (const auto& op : ops) {
    out.matmul_flops += op.matmul_flops * per_step;
    if (op.low_precision) out.low_precision_flops += op.matmul_flops * per_step;
    if (op.float8) out.float8_flops += op.matmul_flops * per_step;
    if (op.op_class == OpClass::cast) out.cast_seconds += double(op.self_ns) * 1e-9 * per_step;
    out.cast_bytes += double(op.cast_bytes) * per_step;
    if (autocast && op.phase == Phase::forward && op.matmul_flops > 0 && !op.low_precision)
      fp32_in_autocast.push_back(&op);
  }
  if (out.matmul_flops > 0) {
    out.low_precision_flop_share = out.low_precision_flops / out.matmul_flops;
    out.float8_flop_share = out.float8_flops / out.matmul_flops;
  }
  out.fp32_in_autocast = aggregate(fp32_in_autocast, &AttributedOp::inclusive_ns, per_step);
  for (const auto& op : out.fp32_in_autocast) out.fp32_in_autocast_seconds += op.seconds;
  return out;
}

}  // namespace

ModeProfile summarize_profile(const CapturedEvents& events, const std::vector<AttributedOp>& ops,
                              bool autocast) {
  ModeProfile out;
  out.steps = int64_t(events.steps.size());
  out.device_time = events.device_time();
  if (out.steps == 0) return out;
  const double per_step = 1.0 / double(out.steps);
  for (const auto& step : events.steps) out.step_seconds += double(step.length()) * 1e-9 * per_step;
  out.classes = class_times(ops, per_step);
  for (const auto& c : out.classes) out.op_seconds += c.seconds;
  out.overhead_seconds = out.step_seconds - out.op_seconds;
  std::vector<const AttributedOp*> all;
  for (const auto& op : ops) all.push_back(&op);
  out.top_ops = aggregate(all, &AttributedOp::self_ns, per_step);
  if (out.top_ops.size() > kTopOps) out.top_ops.resize(kTopOps);
  out.precision = audit(ops, autocast, per_step);
  return out;
}

}  // namespace ampbench::profile
