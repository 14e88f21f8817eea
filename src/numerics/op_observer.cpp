#include "numerics/op_observer.h"

#include <algorithm>
#include <cmath>
#include <mutex>
#include <stdexcept>

#include <spdlog/spdlog.h>

#include "amp/linear_observer.h"
#include "amp/precision_mode.h"
#include "amp/record_scopes.h"
#include "numerics/error_line.h"
#include "numerics/node_scope.h"
#include "numerics/readable_values.h"

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
  bool low_bit_product = false;  // a low-bit layer's product (amp::kLowBitProductOp)
  SiteTracker::Start where;
};

// Open low-bit products on this thread: the ops inside one are its own, checked as its result.
thread_local int t_products_open = 0;

// Whether an op is a low-bit layer's machinery, checked only through what the layer returns: one inside a
// low-bit product (its emulated mm, its scales' product: the product's result is the layer's output, and the
// product reads the layer's weight where they read copies), or one preparing a product's operands (the
// format's quantization: the exp2 of a NaN amax's scale made no value of the layer's).
bool inside_low_bit_machinery() { return t_products_open > 0 || amp::preparing_operands(); }

bool checkable(const at::Tensor& t) {
  return t.defined() && t.layout() == at::kStrided && !t.is_meta() && t.numel() > 0 &&
         (t.is_floating_point() || t.is_complex()) && readable_values(t).has_value();
}

// Whether the tensor is all finite, and its largest finite magnitude: one read-back.
std::pair<bool, double> finite_and_largest(const at::Tensor& t) {
  const auto readable = *readable_values(t);
  auto values = readable.is_complex() ? readable.abs() : readable;
  const auto finite = at::isfinite(values);
  const auto largest = at::where(finite, values.abs(), at::zeros({}, values.options())).max();
  const auto both = at::stack({finite.all().to(at::kDouble), largest.to(at::kDouble)}).cpu();
  return {both[0].item<double>() != 0, both[1].item<double>()};
}

// Whether the tensor holds inf, and NaN: one read-back.
std::pair<bool, bool> holds_inf_and_nan(const at::Tensor& t) {
  const auto values = *readable_values(t);
  const auto both = at::stack({at::isinf(values).any(), at::isnan(values).any()}).cpu();
  return {both[0].item<bool>(), both[1].item<bool>()};
}

bool non_finite_number(const c10::IValue& value) {
  return value.isDouble() && !std::isfinite(value.toDouble());
}

// Ops whose outputs are allocated but not written: whatever the memory held is no op's making.
bool allocates_only(const at::RecordFunction& fn) {
  return std::string_view(fn.name()).find("empty") != std::string_view::npos;
}

// The observer's state, shared by the callbacks (plain function pointers) through one global.
class ObserverState {
 public:
  explicit ObserverState(const std::vector<std::pair<std::string, torch::Tensor>>& parameters)
      : sites_(parameters) {}

  std::unique_ptr<at::ObserverContext> start(const at::RecordFunction& fn);
  void end(const at::RecordFunction& fn, at::ObserverContext* context);
  std::optional<NonFiniteOp> first() const {
    std::lock_guard lock(mutex_);
    return first_;
  }

 private:
  std::optional<NonFiniteOp> check_results(const at::RecordFunction& fn, const OpStart& start) const;

  mutable std::mutex mutex_;
  std::optional<NonFiniteOp> first_;
  SiteTracker sites_;
};

ObserverState* g_state = nullptr;

std::unique_ptr<at::ObserverContext> ObserverState::start(const at::RecordFunction& fn) {
  if (is_engine_step(fn)) {
    enter_engine_step();
    return nullptr;
  }
  if (fn.scope() == at::RecordScope::BACKWARD_FUNCTION) {
    enter_backward_node(fn);
    return nullptr;
  }
  if (first() || inside_low_bit_machinery()) return nullptr;
  auto start = std::make_unique<OpStart>();
  start->low_bit_product = std::string_view(fn.name()) == amp::kLowBitProductOp;
  const auto phase = current_phase();
  const auto inputs = tensors_in(fn.inputs());
  for (const auto& tensor : inputs) {
    if (!tensor.defined()) continue;
    ArgumentState argument{tensor, true, std::nullopt};
    if (checkable(tensor)) std::tie(argument.finite, argument.largest) = finite_and_largest(tensor);
    start->arguments.push_back(std::move(argument));
  }
  const auto numbers = fn.inputs();
  const bool reads_floating = std::any_of(start->arguments.begin(), start->arguments.end(),
                                          [](const ArgumentState& a) { return a.largest.has_value(); });
  start->can_make = reads_floating && !allocates_only(fn) &&
                    std::all_of(start->arguments.begin(), start->arguments.end(),
                                [](const ArgumentState& a) { return a.finite; }) &&
                    std::none_of(numbers.begin(), numbers.end(), non_finite_number);
  std::lock_guard lock(mutex_);
  start->where = sites_.start(inputs, phase, fn.seqNr());
  if (start->low_bit_product) ++t_products_open;
  return start;
}

void ObserverState::end(const at::RecordFunction& fn, at::ObserverContext* context) {
  if (is_engine_step(fn)) {
    leave_engine_step();
    return;
  }
  if (fn.scope() == at::RecordScope::BACKWARD_FUNCTION) {
    leave_backward_node();
    return;
  }
  auto* start = static_cast<OpStart*>(context);
  if (start && start->low_bit_product) --t_products_open;
  if (!start || first()) return;
  auto found = start->can_make ? check_results(fn, *start) : std::nullopt;
  std::lock_guard lock(mutex_);
  if (found) {
    if (!first_) first_ = std::move(found);
    return;
  }
  sites_.end(start->where, tensors_in(fn.outputs()), current_phase());
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
    const auto [inf, nan] = holds_inf_and_nan(result);
    if ((inf || nan) && !made_in) made_in = result.scalar_type();
    op.made_inf = op.made_inf || inf;
    op.made_nan = op.made_nan || nan;
  }
  if (!made_in) return std::nullopt;
  op.phase = current_phase();
  op.op = fn.name();
  const auto node = current_backward_node();
  if (op.phase == Phase::backward && node) op.backward_node = node->first;
  for (const auto& argument : start.arguments) {
    op.inputs.push_back({amp::dtype_name(argument.tensor.scalar_type()), argument.tensor.sizes().vec()});
    if (argument.largest && (!op.largest_input || *argument.largest > *op.largest_input))
      op.largest_input = argument.largest;
  }
  for (const auto& result : outputs)
    op.outputs.push_back({amp::dtype_name(result.scalar_type()), result.sizes().vec()});
  op.format_max = largest_finite(*made_in);
  op.site = start.where.site;
  return op;
}

// An error in a callback would reach the terminal as LibTorch's warning with its C++ stack, once per op: the
// op goes unchecked instead, said once.
void unchecked(const at::RecordFunction& fn, const std::exception& e) {
  static std::once_flag said;
  std::call_once(said, [&] {
    spdlog::warn("the divergence observer could not read {}'s tensors, so that op goes unchecked: {}",
                 fn.name(), error_line(e));
  });
}

std::unique_ptr<at::ObserverContext> on_start(const at::RecordFunction& fn) {
  // The checks run ops of their own: unobserved, untracked by autograd.
  at::DisableRecordFunctionGuard unobserved;
  torch::NoGradGuard no_grad;
  try {
    return g_state ? g_state->start(fn) : nullptr;
  } catch (const std::exception& e) {
    unchecked(fn, e);
    return nullptr;
  }
}

void on_end(const at::RecordFunction& fn, at::ObserverContext* context) {
  at::DisableRecordFunctionGuard unobserved;
  torch::NoGradGuard no_grad;
  try {
    if (g_state) g_state->end(fn, context);
  } catch (const std::exception& e) {
    unchecked(fn, e);
  }
}

}  // namespace

NonFiniteObserver::NonFiniteObserver(const std::vector<std::pair<std::string, torch::Tensor>>& parameters) {
  if (observing()) throw std::logic_error("NonFiniteObserver: another observer is active");
  g_state = new ObserverState(parameters);
  handle_ = install_observer(on_start, on_end, "NonFiniteObserver");
}

NonFiniteObserver::~NonFiniteObserver() {
  remove_observer(handle_);
  delete g_state;
  g_state = nullptr;
}

std::optional<NonFiniteOp> NonFiniteObserver::first() const { return g_state->first(); }

}  // namespace ampbench::numerics
