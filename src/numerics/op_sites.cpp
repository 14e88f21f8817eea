#include "numerics/op_sites.h"

#include <stdexcept>
#include <string_view>

#include "numerics/node_scope.h"

namespace ampbench::numerics {
namespace {

// An autograd node running on this thread, or the engine's step around one (which takes the node's name and
// sequence number when the node starts, and keeps them until the step ends).
struct RunningNode {
  std::string name;
  int64_t sequence_number = -1;
  bool engine_step = false;
};
// Innermost last.
thread_local std::vector<RunningNode> t_backward_nodes;

constexpr std::string_view kEngineStep = "autograd::engine::evaluate_function: ";

}  // namespace

SiteTracker::SiteTracker(const std::vector<std::pair<std::string, torch::Tensor>>& parameters) {
  for (const auto& [name, tensor] : parameters) {
    const auto dot = name.rfind('.');
    weights_[tensor.unsafeGetTensorImpl()] = dot == std::string::npos ? "" : name.substr(0, dot);
    kept_.push_back(tensor);
  }
}

SiteTracker::Start SiteTracker::start(const std::vector<at::Tensor>& inputs, Phase phase,
                                      int64_t sequence_number) {
  Start start;
  bool any = false, all = true;
  for (const auto& tensor : inputs) {
    if (!tensor.defined()) continue;
    any = true;
    const auto weight = weights_.find(tensor.unsafeGetTensorImpl());
    if (weight == weights_.end()) {
      all = false;
    } else if (start.module_of_weights.empty()) {
      start.module_of_weights = weight->second;
    }
  }
  start.all_from_weights = any && all;
  start.site = site_of(start, phase);
  if (is_forward(phase) && sequence_number >= 0) forward_sites_[sequence_number] = start.site;
  if (start.site.in_module && start.site.node.empty()) last_module_ = start.site.module;
  return start;
}

void SiteTracker::end(const Start& start, const std::vector<at::Tensor>& outputs, Phase phase) {
  if (!start.all_from_weights || !is_forward(phase)) return;
  for (const auto& output : outputs) {
    if (!output.defined()) continue;
    weights_[output.unsafeGetTensorImpl()] = start.module_of_weights;
    kept_.push_back(output);
  }
}

OpSite SiteTracker::site_of(const Start& start, Phase phase) const {
  if (phase == Phase::backward) {
    const auto node = current_backward_node();
    if (!node) return {};
    const auto found = forward_sites_.find(node->second);
    return found == forward_sites_.end() ? OpSite{} : found->second;
  }
  if (!is_forward(phase)) return {};
  const auto node = current_node();
  if (node.name) return {*node.module_path, true, *node.name};
  if (!start.module_of_weights.empty()) return {start.module_of_weights, true, ""};
  if (phase == Phase::loss) return {};
  return {last_module_, false, ""};
}

void enter_backward_node(const at::RecordFunction& fn) {
  if (!t_backward_nodes.empty() && t_backward_nodes.back().engine_step &&
      t_backward_nodes.back().sequence_number < 0) {
    t_backward_nodes.back().name = fn.name();
    t_backward_nodes.back().sequence_number = fn.seqNr();
    return;
  }
  t_backward_nodes.push_back({fn.name(), fn.seqNr(), false});
}

void leave_backward_node() {
  if (!t_backward_nodes.empty() && !t_backward_nodes.back().engine_step) t_backward_nodes.pop_back();
}

bool is_engine_step(const at::RecordFunction& fn) {
  return fn.scope() != at::RecordScope::BACKWARD_FUNCTION &&
         std::string_view(fn.name()).starts_with(kEngineStep);
}

void enter_engine_step() { t_backward_nodes.push_back({"", -1, true}); }

void leave_engine_step() {
  if (!t_backward_nodes.empty() && t_backward_nodes.back().engine_step) t_backward_nodes.pop_back();
}

void clear_backward_nodes() { t_backward_nodes.clear(); }

std::optional<std::pair<std::string, int64_t>> current_backward_node() {
  if (t_backward_nodes.empty() || t_backward_nodes.back().sequence_number < 0) return std::nullopt;
  return std::pair(t_backward_nodes.back().name, t_backward_nodes.back().sequence_number);
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

at::CallbackHandle install_observer(at::RecordFunctionCallback::StartCallback start,
                                    at::RecordFunctionCallback::EndCallback end, const char* who) {
  if (observing()) throw std::logic_error(std::string(who) + ": another observer is active");
  clear_backward_nodes();
  set_observing(true);
  return at::addGlobalCallback(at::RecordFunctionCallback(start, end)
                                   .needsInputs(true)
                                   .needsOutputs(true)
                                   .scopes({at::RecordScope::FUNCTION, at::RecordScope::BACKWARD_FUNCTION}));
}

void remove_observer(at::CallbackHandle handle) {
  at::removeCallback(handle);
  set_observing(false);
}

std::vector<std::pair<std::string, torch::Tensor>> named_parameters(const torch::nn::Module& model) {
  std::vector<std::pair<std::string, torch::Tensor>> out;
  for (const auto& item : model.named_parameters()) out.emplace_back(item.key(), item.value());
  return out;
}

bool is_forward(Phase phase) {
  return phase == Phase::forward || phase == Phase::loss || phase == Phase::validation;
}

}  // namespace ampbench::numerics
