#include "numerics/range_observer.h"

#include <algorithm>
#include <map>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <utility>

#include "amp/linear_observer.h"
#include "numerics/error_line.h"
#include "numerics/formats.h"
#include "numerics/node_scope.h"
#include "numerics/op_sites.h"

namespace ampbench::numerics {
namespace {

// An autograd node's ops, and its engine step's, count from depth 0 again: the whole backward runs inside
// aten::_backward.
struct NodeStart : at::ObserverContext {
  int outer_depth = 0;
};

struct RangeOpStart : at::ObserverContext {
  SiteTracker::Start where;
  bool outermost = false;
  std::vector<at::Tensor> inputs;
};

// One op result's figures on the device: the largest finite magnitude, the nonzero, subnormal and non-finite
// counts, and with a loss scale the flushed and subnormal counts of the result divided by it. The result is
// 16-bit, which fp32 holds exactly: no wider copy of it is made.
torch::Tensor figures_of(const at::Tensor& result, std::optional<double> loss_scale) {
  const auto magnitude = result.abs().to(at::kFloat);
  const auto finite = at::isfinite(magnitude);
  const auto tiny = *smallest_normal(result.scalar_type());
  std::vector<at::Tensor> figures{
      at::where(finite, magnitude, at::zeros({}, magnitude.options())).max().to(at::kDouble),
      (magnitude > 0).sum().to(at::kDouble), ((magnitude > 0) & (magnitude < tiny)).sum().to(at::kDouble),
      (~finite).sum().to(at::kDouble)};
  if (loss_scale) {
    const auto unscaled = cast_counts(result.to(at::kFloat) / *loss_scale, result.scalar_type());
    figures.push_back(unscaled.flushed.to(at::kDouble));
    figures.push_back(unscaled.subnormal.to(at::kDouble));
  }
  return at::stack(figures);
}

std::string label_of(const OpSite& site, Phase phase) {
  if (phase == Phase::loss) return "(loss)";
  if (site.in_module) return site.module.empty() ? site.node : site.module;
  return site.module.empty() ? "(input)" : "after " + site.module;
}

// A layer's results so far in one direction: each op's figures (on the device) and element count.
struct Pending {
  std::vector<torch::Tensor> figures;
  int64_t elements = 0;

  RangeFigures read() const {
    RangeFigures out;
    if (figures.empty()) return out;
    const auto all = at::stack(figures).cpu();
    const auto total = [&](int64_t column) { return int64_t(all.select(1, column).sum().item<double>()); };
    out.largest = all.select(1, 0).max().item<double>();
    out.nonzero = total(1);
    out.subnormal = total(2);
    out.nonfinite = total(3);
    if (all.size(1) > 4) {
      out.flushed_unscaled = total(4);
      out.subnormal_unscaled = total(5);
    }
    out.elements = elements;
    return out;
  }
};

class RangeObserverState {
 public:
  RangeObserverState(const std::vector<std::pair<std::string, torch::Tensor>>& parameters,
                     c10::ScalarType format, std::optional<double> loss_scale)
      : sites_(parameters), format_(format), loss_scale_(loss_scale) {}

  std::unique_ptr<at::ObserverContext> start(const at::RecordFunction& fn);
  void end(const at::RecordFunction& fn, at::ObserverContext* context);
  std::vector<LayerRanges> layers() const;
  // The first error a callback met (its first line): LibTorch would print it with its stack and carry on.
  void fail(const std::string& error) {
    std::lock_guard lock(mutex_);
    if (!error_) error_ = error;
  }
  std::optional<std::string> error() const {
    std::lock_guard lock(mutex_);
    return error_;
  }

 private:
  std::string label_now(const SiteTracker::Start& where, Phase phase) const;
  void count(const std::string& label, bool forward, const at::Tensor& result);

  mutable std::mutex mutex_;
  SiteTracker sites_;
  c10::ScalarType format_;
  std::optional<double> loss_scale_;
  std::map<int64_t, std::string> forward_labels_;               // by sequence number, for the backward ops
  std::vector<std::string> order_;                              // the layers in the order they first ran
  std::map<std::string, std::pair<Pending, Pending>> pending_;  // forward, backward
  std::optional<std::string> error_;
};

RangeObserverState* g_range_state = nullptr;
thread_local int t_depth = 0;  // the ops running on this thread, nested

std::unique_ptr<at::ObserverContext> RangeObserverState::start(const at::RecordFunction& fn) {
  const bool engine_step = is_engine_step(fn);
  if (engine_step || fn.scope() == at::RecordScope::BACKWARD_FUNCTION) {
    engine_step ? enter_engine_step() : enter_backward_node(fn);
    auto node = std::make_unique<NodeStart>();
    node->outer_depth = std::exchange(t_depth, 0);
    return node;
  }
  auto start = std::make_unique<RangeOpStart>();
  start->outermost = ++t_depth == 1;
  start->inputs = tensors_in(fn.inputs());
  std::lock_guard lock(mutex_);
  start->where = sites_.start(start->inputs, current_phase(), fn.seqNr());
  if (is_forward(current_phase()) && fn.seqNr() >= 0)
    forward_labels_[fn.seqNr()] = label_of(start->where.site, current_phase());
  return start;
}

std::string RangeObserverState::label_now(const SiteTracker::Start& where, Phase phase) const {
  if (phase != Phase::backward) return label_of(where.site, phase);
  const auto node = current_backward_node();
  const auto found = node ? forward_labels_.find(node->second) : forward_labels_.end();
  return found == forward_labels_.end() ? "(other)" : found->second;
}

void RangeObserverState::end(const at::RecordFunction& fn, at::ObserverContext* context) {
  const bool engine_step = is_engine_step(fn);
  if (engine_step || fn.scope() == at::RecordScope::BACKWARD_FUNCTION) {
    engine_step ? leave_engine_step() : leave_backward_node();
    if (context) t_depth = static_cast<NodeStart*>(context)->outer_depth;
    return;
  }
  auto* start = static_cast<RangeOpStart*>(context);
  if (!start) return;
  --t_depth;
  const auto phase = current_phase();
  const auto outputs = tensors_in(fn.outputs());
  std::lock_guard lock(mutex_);
  sites_.end(start->where, outputs, phase);
  const bool forward = phase == Phase::forward || phase == Phase::loss;
  if (!start->outermost || (!forward && phase != Phase::backward) || amp::preparing_operands()) return;
  const auto label = label_now(start->where, phase);
  for (const auto& result : outputs) {
    if (!result.defined() || result.scalar_type() != format_ || result.numel() == 0) continue;
    const bool view = std::any_of(start->inputs.begin(), start->inputs.end(), [&](const at::Tensor& input) {
      return input.defined() && input.is_alias_of(result);
    });
    if (!view) count(label, forward, result);
  }
}

void RangeObserverState::count(const std::string& label, bool forward, const at::Tensor& result) {
  auto [entry, added] = pending_.try_emplace(label);
  if (added) order_.push_back(label);
  auto& pending = forward ? entry->second.first : entry->second.second;
  pending.figures.push_back(figures_of(result, forward ? std::nullopt : loss_scale_));
  pending.elements += result.numel();
}

std::vector<LayerRanges> RangeObserverState::layers() const {
  std::lock_guard lock(mutex_);
  std::vector<LayerRanges> out;
  for (const auto& label : order_) {
    const auto& [forward, backward] = pending_.at(label);
    out.push_back({label, forward.read(), backward.read()});
  }
  return out;
}

std::unique_ptr<at::ObserverContext> on_range_start(const at::RecordFunction& fn) {
  at::DisableRecordFunctionGuard unobserved;
  torch::NoGradGuard no_grad;
  if (!g_range_state) return nullptr;
  try {
    return g_range_state->start(fn);
  } catch (const std::exception& e) {
    g_range_state->fail(error_line(e));
    return nullptr;
  }
}

void on_range_end(const at::RecordFunction& fn, at::ObserverContext* context) {
  at::DisableRecordFunctionGuard unobserved;
  torch::NoGradGuard no_grad;
  if (!g_range_state) return;
  try {
    g_range_state->end(fn, context);
  } catch (const std::exception& e) {
    g_range_state->fail(error_line(e));
  }
}

}  // namespace

void merge_ranges(std::vector<LayerRanges>& into, const std::vector<LayerRanges>& from) {
  auto add = [](RangeFigures& a, const RangeFigures& b) {
    a.largest = std::max(a.largest, b.largest);
    a.elements += b.elements;
    a.nonzero += b.nonzero;
    a.subnormal += b.subnormal;
    a.nonfinite += b.nonfinite;
    a.flushed_unscaled += b.flushed_unscaled;
    a.subnormal_unscaled += b.subnormal_unscaled;
  };
  for (const auto& layer : from) {
    auto found =
        std::find_if(into.begin(), into.end(), [&](const auto& l) { return l.layer == layer.layer; });
    if (found == into.end()) {
      into.push_back(layer);
      continue;
    }
    add(found->forward, layer.forward);
    add(found->backward, layer.backward);
  }
}

RangeObserver::RangeObserver(const std::vector<std::pair<std::string, torch::Tensor>>& parameters,
                             c10::ScalarType format, std::optional<double> loss_scale) {
  if (observing()) throw std::logic_error("RangeObserver: another observer is active");
  if (!smallest_normal(format)) throw std::invalid_argument("RangeObserver: not a floating format");
  g_range_state = new RangeObserverState(parameters, format, loss_scale);
  t_depth = 0;
  handle_ = install_observer(on_range_start, on_range_end, "RangeObserver");
}

RangeObserver::~RangeObserver() {
  remove_observer(handle_);
  delete g_range_state;
  g_range_state = nullptr;
}

std::vector<LayerRanges> RangeObserver::layers() const {
  at::DisableRecordFunctionGuard unobserved;  // its read-back is not the model's
  if (const auto error = g_range_state->error())
    throw std::runtime_error("while observing a step: " + *error);
  return g_range_state->layers();
}

}  // namespace ampbench::numerics
