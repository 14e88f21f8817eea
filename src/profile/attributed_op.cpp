#include "profile/attributed_op.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <string_view>
#include <unordered_map>

#include "amp/record_scopes.h"
#include "util/enum_names.h"

namespace ampbench::profile {
namespace {

// The profiled pass's own phase and step markers are named so; they are not operators.
constexpr std::string_view kMarkerPrefix = "ampbench::";

std::string_view bare(std::string_view name) {
  if (name.starts_with("aten::")) name.remove_prefix(6);
  return name;
}

double numel(const std::vector<int64_t>& shape) {
  return std::accumulate(shape.begin(), shape.end(), 1.0, [](double n, int64_t d) { return n * double(d); });
}

int64_t element_size(std::string_view dtype) {
  if (dtype == "double" || dtype == "long int") return 8;
  if (dtype == "float" || dtype == "int") return 4;
  if (is_16bit_dtype(dtype) || dtype == "short int") return 2;
  if (is_float8_dtype(dtype)) return 1;
  if (dtype == "bool" || dtype == "signed char" || dtype == "unsigned char") return 1;
  return 0;  // not a tensor: Scalar, ScalarList, None, ...
}

// Where fused attention's operands keep the key length: the public ops take [B, H, L, E], the CUDA
// kernels they call (and that keep the FLOPs, being innermost) take [B, L, H, E].
size_t key_length_dim(std::string_view bare_name) {
  return bare_name.starts_with("_flash_attention") || bare_name.starts_with("_efficient_attention") ? 1 : 2;
}

// FLOPs of the matrix work the profiler does not count: float8 products (2 M K N), a convolution's backward
// (the input's and the weight's gradients, each as much work as the forward) and fused attention (Q K^T and
// its product with V; backward about twice that).
double estimated_flops(std::string_view name, const std::vector<std::vector<int64_t>>& shapes) {
  name = bare(name);
  if (name == "_scaled_mm" && shapes.size() >= 2 && shapes[0].size() == 2 && shapes[1].size() == 2)
    return 2.0 * numel(shapes[0]) * double(shapes[1][1]);
  if (name == "convolution_backward" && shapes.size() >= 3 && shapes[2].size() >= 3 && shapes[2][0] > 0) {
    const double forward = 2.0 * numel(shapes[0]) * numel(shapes[2]) / double(shapes[2][0]);
    return 2.0 * forward;
  }
  const bool attention = name.find("scaled_dot_product") != std::string_view::npos ||
                         name.find("flash_attention") != std::string_view::npos ||
                         name.find("efficient_attention") != std::string_view::npos;
  const bool backward = name.find("backward") != std::string_view::npos;
  const size_t q = backward ? 1 : 0;  // a backward's first input is the output's gradient
  if (!attention || shapes.size() < q + 2 || shapes[q].size() != 4 || shapes[q + 1].size() != 4) return 0;
  const auto& query = shapes[q];
  const double forward =
      4.0 * numel(query) * double(shapes[q + 1][key_length_dim(name)]);  // 2 B H L S E, twice
  return backward ? 2.0 * forward : forward;
}

bool is_matrix_work(OpClass op_class) {
  return op_class == OpClass::matmul_conv || op_class == OpClass::attention;
}

// When a user scope of one name was open, by thread, as disjoint spans in time order.
class ScopeSpans {
 public:
  ScopeSpans(const std::vector<OpEvent>& ops, std::string_view name) {
    for (const auto& op : ops) {
      if (op.name == name) by_thread_[op.thread].push_back({op.start_ns, op.end_ns});
    }
    for (auto& [thread, spans] : by_thread_) merge(spans);
  }

  bool contain(const OpEvent& op) const {
    const auto found = by_thread_.find(op.thread);
    if (found == by_thread_.end()) return false;
    const auto& spans = found->second;
    auto after = std::upper_bound(spans.begin(), spans.end(), op.start_ns,
                                  [](int64_t t, const Span& s) { return t < s.start_ns; });
    return after != spans.begin() && std::prev(after)->contains(op.start_ns);
  }

 private:
  // Nested and overlapping spans become one, so that a search finds the one that holds a time.
  static void merge(std::vector<Span>& spans) {
    std::sort(spans.begin(), spans.end(),
              [](const Span& a, const Span& b) { return a.start_ns < b.start_ns; });
    std::vector<Span> merged;
    for (const auto& span : spans) {
      if (!merged.empty() && span.start_ns <= merged.back().end_ns)
        merged.back().end_ns = std::max(merged.back().end_ns, span.end_ns);
      else
        merged.push_back(span);
    }
    spans = std::move(merged);
  }

  std::map<uint64_t, std::vector<Span>> by_thread_;
};

// One op while its thread's nesting is walked.
struct Open {
  size_t index;
  int64_t children_ns = 0;            // host time of the ops it called directly
  int64_t children_inclusive_ns = 0;  // their inclusive time in the chosen clock
  bool matrix_flops_below = false;    // an op it called (at any depth) counts matrix FLOPs itself
};

class Attributor {
 public:
  explicit Attributor(const CapturedEvents& events)
      : events_(events),
        emulated_products_(events.ops, amp::kEmulatedProductMarker),
        low_bit_operands_(events.ops, amp::kOperandsMarker) {
    for (const auto& d : events.device) device_ns_[d.op_correlation_id] += d.duration_ns;
  }

  std::vector<AttributedOp> run() {
    auto order = ops_in_steps();
    std::vector<Open> stack;
    for (size_t i : order) {
      const auto& op = events_.ops[i];
      while (!stack.empty() && (events_.ops[stack.back().index].thread != op.thread ||
                                events_.ops[stack.back().index].end_ns <= op.start_ns))
        close(stack);
      stack.push_back({i});
    }
    while (!stack.empty()) close(stack);
    return std::move(out_);
  }

 private:
  // Indices of the ops that started inside a profiled step, by thread, then start, outer before inner.
  std::vector<size_t> ops_in_steps() const {
    std::vector<size_t> order;
    for (size_t i = 0; i < events_.ops.size(); ++i) {
      const auto& op = events_.ops[i];
      if (op.name.starts_with(kMarkerPrefix)) continue;
      if (std::any_of(events_.steps.begin(), events_.steps.end(),
                      [&](const Span& s) { return s.contains(op.start_ns); }))
        order.push_back(i);
    }
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      const auto &x = events_.ops[a], &y = events_.ops[b];
      if (x.thread != y.thread) return x.thread < y.thread;
      if (x.start_ns != y.start_ns) return x.start_ns < y.start_ns;
      return x.end_ns > y.end_ns;
    });
    return order;
  }

  void close(std::vector<Open>& stack) {
    const Open open = stack.back();
    stack.pop_back();
    auto attributed = attribute(open);
    const auto& op = events_.ops[open.index];
    // A block-scaled format's emulated product (a bf16 or fp32 mm of its dequantized operands) is the
    // format's work; its operands' preparation is its own work, no matrix work of the model's (NVFP4's
    // Hadamard).
    if (inside_float8_product(stack) || emulated_products_.contain(op)) {
      attributed.float8 = attributed.low_precision = true;
    } else if (low_bit_operands_.contain(op)) {
      attributed.matmul_flops = 0;
    }
    if (!stack.empty()) {
      auto& parent = stack.back();
      parent.children_ns += op.end_ns - op.start_ns;
      parent.children_inclusive_ns += attributed.inclusive_ns;
      parent.matrix_flops_below |= open.matrix_flops_below || own_matrix_flops(attributed, op) > 0;
    }
    out_.push_back(std::move(attributed));
  }

  // An op called by at::_scaled_mm is part of the float8 product: on the CPU, its emulation in fp32.
  bool inside_float8_product(const std::vector<Open>& ancestors) const {
    return std::any_of(ancestors.begin(), ancestors.end(),
                       [&](const Open& o) { return bare(events_.ops[o.index].name) == "_scaled_mm"; });
  }

  double own_matrix_flops(const AttributedOp& attributed, const OpEvent& op) const {
    if (!is_matrix_work(attributed.op_class)) return 0;
    return op.flops > 0 ? op.flops : estimated_flops(op.name, op.shapes);
  }

  AttributedOp attribute(const Open& open) const {
    const auto& op = events_.ops[open.index];
    AttributedOp out;
    out.name = op.name;
    out.phase = phase_at(op.start_ns);
    out.op_class = classify_op(op.name, op.dtypes);
    const auto found = device_ns_.find(op.correlation_id);
    out.self_ns = events_.device_time() ? (found == device_ns_.end() ? 0 : found->second)
                                        : std::max<int64_t>(0, op.end_ns - op.start_ns - open.children_ns);
    out.inclusive_ns = out.self_ns + open.children_inclusive_ns;
    describe_inputs(op, out);
    if (!open.matrix_flops_below) out.matmul_flops = own_matrix_flops(out, op);
    if (out.op_class == OpClass::cast && bare(op.name) == "copy_" && !op.shapes.empty())
      out.cast_bytes = int64_t(numel(op.shapes[0])) * element_size(op.dtypes[0]);
    return out;
  }

  // 16-bit when most floating inputs are: the operands are, while an input such as fused attention's
  // log-sum-exp stays fp32 by design. Float8 when any is: at::_scaled_mm's scales are fp32 by design.
  static void describe_inputs(const OpEvent& op, AttributedOp& out) {
    int floating = 0, sixteen_bit = 0;
    for (size_t i = 0; i < op.dtypes.size(); ++i) {
      if (element_size(op.dtypes[i]) == 0) continue;
      out.tensor_dtypes.push_back(op.dtypes[i]);
      out.tensor_shapes.push_back(i < op.shapes.size() ? op.shapes[i] : std::vector<int64_t>{});
      floating += is_floating_dtype(op.dtypes[i]);
      sixteen_bit += is_16bit_dtype(op.dtypes[i]);
      out.float8 = out.float8 || is_float8_dtype(op.dtypes[i]);
    }
    out.low_precision = out.float8 || 2 * sixteen_bit > floating;
  }

  Phase phase_at(int64_t t) const {
    for (const auto& [phase, span] : events_.phases) {
      if (span.contains(t)) return phase;
    }
    return Phase::other;
  }

  const CapturedEvents& events_;
  const ScopeSpans emulated_products_, low_bit_operands_;
  std::unordered_map<uint64_t, int64_t> device_ns_;
  std::vector<AttributedOp> out_;
};

}  // namespace

std::string_view to_string(Phase phase) {
  static constexpr util::EnumNames<Phase, kPhases> kNames{{{Phase::forward, "forward"},
                                                           {Phase::backward, "backward"},
                                                           {Phase::optimizer, "optimizer"},
                                                           {Phase::other, "other"}}};
  return util::name_of(kNames, phase);
}

std::vector<AttributedOp> attribute_ops(const CapturedEvents& events) { return Attributor(events).run(); }

}  // namespace ampbench::profile
