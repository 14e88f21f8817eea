#include "numerics/op_observer.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <mutex>
#include <stdexcept>
#include <unordered_map>

#include "numerics/node_scope.h"

namespace ampbench::numerics {
namespace {

// One tensor argument's state when its op started.
struct ArgumentState {
  at::Tensor tensor;
  bool finite = true;
  std::optional<double> largest;  // finite magnitude; floating tensors only
};

// What the start callback found, for the end callback.
struct OpStart : at::ObserverContext {
  std::vector<ArgumentState> arguments;
  // It can make inf or NaN: it reads a floating tensor, all of them finite, and no infinite number.
  bool can_make = false;
  OpSite site;
  bool all_from_weights = false;  // every tensor argument is a module's weight or derived from one alone
  std::string module_of_weights;
};

bool checkable(const at::Tensor& t) {
  return t.defined() && t.layout() == at::kStrided && !t.is_meta() && t.numel() > 0 &&
         (t.is_floating_point() || t.is_complex());
}

std::vector<at::Tensor> tensors_in(c10::ArrayRef<const c10::IValue> values) {
  std::vector<at::Tensor> out;
  for (const auto& value : values) {
    if (value.isTensor()) {
      out.push_back(value.toTensor());
    } else if (value.isTensorList()) {
      for (const at::Tensor& t : value.toTensorList()) out.push_back(t);
    }
  }
  return out;
}

std::vector<at::Tensor> tensors_in(const std::vector<c10::IValue>& values) {
  return tensors_in(c10::ArrayRef<const c10::IValue>(values.data(), values.size()));
}

// Whether the tensor is all finite, and its largest finite magnitude: one read-back.
std::pair<bool, double> finite_and_largest(const at::Tensor& t) {
  auto values = t.is_complex() ? t.abs() : t;
  const auto finite = at::isfinite(values);
  const auto largest = at::where(finite, values.abs(), at::zeros({}, values.options())).max();
  const auto both = at::stack({finite.all().to(at::kDouble), largest.to(at::kDouble)}).cpu();
  return {both[0].item<double>() != 0, both[1].item<double>()};
}

bool non_finite_number(const c10::IValue& value) {
  return value.isDouble() && !std::isfinite(value.toDouble());
}

// Ops whose outputs are allocated but not written: whatever the memory held is no op's making.
bool allocates_only(const at::RecordFunction& fn) {
  return std::string_view(fn.name()).find("empty") != std::string_view::npos;
}

bool is_forward(Phase phase) {
  return phase == Phase::forward || phase == Phase::loss || phase == Phase::validation;
}

// The observer's state, shared by the callbacks (plain function pointers) through one global.
class ObserverState {
 public:
  explicit ObserverState(const std::vector<std::pair<std::string, torch::Tensor>>& parameters) {
    for (const auto& [name, tensor] : parameters) {
      const auto dot = name.rfind('.');
      weights_[tensor.unsafeGetTensorImpl()] = dot == std::string::npos ? "" : name.substr(0, dot);
      kept_.push_back(tensor);
    }
  }

  std::unique_ptr<at::ObserverContext> start(const at::RecordFunction& fn);
  void end(const at::RecordFunction& fn, at::ObserverContext* context);
  std::optional<NonFiniteOp> first() const {
    std::lock_guard lock(mutex_);
    return first_;
  }

 private:
  OpSite site_of(const OpStart& start, Phase phase) const;
  std::optional<NonFiniteOp> check_results(const at::RecordFunction& fn, const OpStart& start) const;
  void remember_weights(const at::RecordFunction& fn, const OpStart& start);

  mutable std::mutex mutex_;
  std::optional<NonFiniteOp> first_;
  std::unordered_map<const c10::TensorImpl*, std::string> weights_;  // a weight, or a cast/view of one
  std::vector<at::Tensor> kept_;  // keeps those tensors alive: a freed one's address could name another
  std::unordered_map<int64_t, OpSite> forward_sites_;  // by sequence number: a backward node's forward op
  std::string last_module_;                            // the last module whose weights a forward op read
};

ObserverState* g_state = nullptr;
// The autograd nodes running on this thread, innermost last: (name, sequence number).
thread_local std::vector<std::pair<std::string, int64_t>> t_backward_nodes;

std::unique_ptr<at::ObserverContext> ObserverState::start(const at::RecordFunction& fn) {
  if (fn.scope() == at::RecordScope::BACKWARD_FUNCTION) {
    t_backward_nodes.emplace_back(fn.name(), fn.seqNr());
    return nullptr;
  }
  if (first()) return nullptr;
  auto start = std::make_unique<OpStart>();
  const auto phase = current_phase();
  std::lock_guard lock(mutex_);
  bool any = false, all = true;
  for (auto& tensor : tensors_in(fn.inputs())) {
    if (!tensor.defined()) continue;
    const auto weight = weights_.find(tensor.unsafeGetTensorImpl());
    any = true;
    if (weight == weights_.end()) {
      all = false;
    } else if (start->module_of_weights.empty()) {
      start->module_of_weights = weight->second;
    }
    ArgumentState argument{tensor};
    if (checkable(tensor)) std::tie(argument.finite, argument.largest) = finite_and_largest(tensor);
    start->arguments.push_back(std::move(argument));
  }
  start->all_from_weights = any && all;
  const auto inputs = fn.inputs();
  const bool reads_floating = std::any_of(start->arguments.begin(), start->arguments.end(),
                                          [](const ArgumentState& a) { return a.largest.has_value(); });
  start->can_make = reads_floating && !allocates_only(fn) &&
                    std::all_of(start->arguments.begin(), start->arguments.end(),
                                [](const ArgumentState& a) { return a.finite; }) &&
                    std::none_of(inputs.begin(), inputs.end(), non_finite_number);
  start->site = site_of(*start, phase);
  if (is_forward(phase) && fn.seqNr() >= 0) forward_sites_[fn.seqNr()] = start->site;
  if (start->site.in_module && start->site.node.empty()) last_module_ = start->site.module;
  return start;
}

OpSite ObserverState::site_of(const OpStart& start, Phase phase) const {
  if (phase == Phase::backward) {
    if (t_backward_nodes.empty()) return {};
    const auto found = forward_sites_.find(t_backward_nodes.back().second);
    return found == forward_sites_.end() ? OpSite{} : found->second;
  }
  if (!is_forward(phase)) return {};
  const auto node = current_node();
  if (node.name) return {*node.module_path, true, *node.name};
  if (!start.module_of_weights.empty()) return {start.module_of_weights, true, ""};
  if (phase == Phase::loss) return {};
  return {last_module_, false, ""};
}

void ObserverState::end(const at::RecordFunction& fn, at::ObserverContext* context) {
  if (fn.scope() == at::RecordScope::BACKWARD_FUNCTION) {
    if (!t_backward_nodes.empty()) t_backward_nodes.pop_back();
    return;
  }
  auto* start = static_cast<OpStart*>(context);
  if (!start || first()) return;
  auto found = start->can_make ? check_results(fn, *start) : std::nullopt;
  std::lock_guard lock(mutex_);
  if (found) {
    if (!first_) first_ = std::move(found);
    return;
  }
  if (start->all_from_weights && is_forward(current_phase())) remember_weights(fn, *start);
}

void ObserverState::remember_weights(const at::RecordFunction& fn, const OpStart& start) {
  for (auto& output : tensors_in(fn.outputs())) {
    if (!output.defined()) continue;
    weights_[output.unsafeGetTensorImpl()] = start.module_of_weights;
    kept_.push_back(output);
  }
}

std::optional<NonFiniteOp> ObserverState::check_results(const at::RecordFunction& fn,
                                                        const OpStart& start) const {
  NonFiniteOp op;
  // An op that returns nothing writes into its arguments (the fused optimizer, unscale_): check those.
  const auto outputs = fn.outputs().empty() ? std::vector<at::Tensor>() : tensors_in(fn.outputs());
  std::vector<at::Tensor> written;
  if (fn.outputs().empty()) {
    for (const auto& argument : start.arguments) {
      if (checkable(argument.tensor)) written.push_back(argument.tensor);
    }
  }
  const auto& results = fn.outputs().empty() ? written : outputs;
  std::optional<c10::ScalarType> made_in;
  for (const auto& result : results) {
    if (!checkable(result)) continue;
    const bool inf = at::isinf(result).any().item<bool>();
    const bool nan = at::isnan(result).any().item<bool>();
    if ((inf || nan) && !made_in) made_in = result.scalar_type();
    op.made_inf = op.made_inf || inf;
    op.made_nan = op.made_nan || nan;
  }
  if (!made_in) return std::nullopt;
  op.phase = current_phase();
  op.op = fn.name();
  if (op.phase == Phase::backward && !t_backward_nodes.empty())
    op.backward_node = t_backward_nodes.back().first;
  for (const auto& argument : start.arguments) {
    op.inputs.push_back({dtype_name(argument.tensor.scalar_type()), argument.tensor.sizes().vec()});
    if (argument.largest && (!op.largest_input || *argument.largest > *op.largest_input))
      op.largest_input = argument.largest;
  }
  for (const auto& result : outputs)
    op.outputs.push_back({dtype_name(result.scalar_type()), result.sizes().vec()});
  op.format_max = largest_finite(*made_in);
  op.site = start.site;
  return op;
}

std::unique_ptr<at::ObserverContext> on_start(const at::RecordFunction& fn) {
  // The checks run ops of their own: unobserved, untracked by autograd.
  at::DisableRecordFunctionGuard unobserved;
  torch::NoGradGuard no_grad;
  return g_state ? g_state->start(fn) : nullptr;
}

void on_end(const at::RecordFunction& fn, at::ObserverContext* context) {
  at::DisableRecordFunctionGuard unobserved;
  torch::NoGradGuard no_grad;
  if (g_state) g_state->end(fn, context);
}

}  // namespace

NonFiniteObserver::NonFiniteObserver(const std::vector<std::pair<std::string, torch::Tensor>>& parameters) {
  if (g_state) throw std::logic_error("NonFiniteObserver: another observer is active");
  g_state = new ObserverState(parameters);
  t_backward_nodes.clear();
  set_observing(true);
  handle_ =
      at::addGlobalCallback(at::RecordFunctionCallback(on_start, on_end)
                                .needsInputs(true)
                                .needsOutputs(true)
                                .scopes({at::RecordScope::FUNCTION, at::RecordScope::BACKWARD_FUNCTION}));
}

NonFiniteObserver::~NonFiniteObserver() {
  at::removeCallback(handle_);
  set_observing(false);
  delete g_state;
  g_state = nullptr;
}

std::optional<NonFiniteOp> NonFiniteObserver::first() const { return g_state->first(); }

std::optional<double> largest_finite(c10::ScalarType dtype) {
  switch (dtype) {
    case at::kHalf:
      return double(std::numeric_limits<c10::Half>::max());
    case at::kBFloat16:
      return double(std::numeric_limits<c10::BFloat16>::max());
    case at::kFloat:
    case at::kComplexFloat:
      return double(std::numeric_limits<float>::max());
    case at::kDouble:
    case at::kComplexDouble:
      return std::numeric_limits<double>::max();
    case at::kFloat8_e4m3fn:
      return double(std::numeric_limits<c10::Float8_e4m3fn>::max());
    case at::kFloat8_e5m2:
      return double(std::numeric_limits<c10::Float8_e5m2>::max());
    default:
      return std::nullopt;
  }
}

std::string dtype_name(c10::ScalarType dtype) {
  switch (dtype) {
    case at::kHalf:
      return "fp16";
    case at::kBFloat16:
      return "bf16";
    case at::kFloat:
      return "fp32";
    case at::kDouble:
      return "fp64";
    default:
      return c10::toString(dtype);
  }
}

}  // namespace ampbench::numerics
