#include "models/export_graph.h"

#include <ATen/core/stack.h>

#include "amp/autocast_scope.h"
#include "amp/float8_linear.h"
#include "models/export_enums.h"
#include "numerics/node_scope.h"
#include "util/input_error.h"

namespace ampbench::models {
namespace {

using nlohmann::json;
using util::InputError;

constexpr std::string_view kOpPrefix = "torch.ops.";

// What a node's error line calls it: its name and op.
std::string node_label(const GraphNode& node) {
  auto target = std::string_view(node.target);
  if (target.starts_with(kOpPrefix)) target.remove_prefix(kOpPrefix.size());
  return "node \"" + node.name + "\" (" + std::string(target) + ")";
}

// "torch.ops.aten.conv2d.default" as the dispatcher names it: {"aten::conv2d", ""}.
std::optional<c10::OperatorName> operator_name_of(const std::string& target) {
  if (!target.starts_with(kOpPrefix)) return std::nullopt;
  const auto rest = target.substr(kOpPrefix.size());
  const auto first = rest.find('.'), last = rest.rfind('.');
  if (first == std::string::npos || first == last) return std::nullopt;
  const auto overload = rest.substr(last + 1);
  return c10::OperatorName(rest.substr(0, first) + "::" + rest.substr(first + 1, last - first - 1),
                           overload == "default" ? "" : overload);
}

// The innermost module of a node's nn_module_stack, as torch.export serializes it ("KEY,PATH,TYPE" per
// module, outermost first, joined by ";"); "" when the metadata has none or the node ran at the root.
std::string module_path_of(const json& node) {
  const auto& metadata = node.value("metadata", json::object());
  if (!metadata.contains("nn_module_stack") || !metadata.at("nn_module_stack").is_string()) return "";
  const auto stack = metadata.at("nn_module_stack").get<std::string>();
  const auto innermost = stack.substr(stack.rfind(';') + 1);
  const auto first = innermost.find(','), last = innermost.rfind(',');
  return first == std::string::npos || first == last ? "" : innermost.substr(first + 1, last - first - 1);
}

std::string first_output_name(const json& node) {
  for (const auto& output : node.value("outputs", json::array())) {
    const auto dumped = output.dump();
    for (const auto* key : {"as_tensor", "as_sym_int", "as_sym_bool", "as_sym_float"}) {
      if (output.contains(key)) {
        const auto& value = output.at(key);
        return value.value("name", value.value("as_name", dumped));
      }
    }
    if (output.contains("as_tensors") && !output.at("as_tensors").empty())
      return output.at("as_tensors").front().value("name", dumped);
  }
  return node.value("name", "(unnamed)");
}

bool is_none(const BoundArgument& argument) {
  return argument.kind == BoundArgument::Kind::single && argument.elements.front().slot < 0 &&
         argument.elements.front().constant.isNone();
}

// Batch norm without running statistics (track_running_stats=False: None for both, or an overload without
// them) normalises with the batch's statistics in eval() too, as the eager module does: its training flag
// keeps the program's value there.
void keep_batch_statistics_in_eval(GraphNode& node) {
  const auto& schema = node.op->schema();
  if (schema.name().find("batch_norm") == std::string::npos) return;
  const auto mean = schema.argumentIndexWithName("running_mean");
  const auto var = schema.argumentIndexWithName("running_var");
  const bool without_statistics =
      mean && var ? is_none(node.arguments[*mean]) && is_none(node.arguments[*var]) : !mean && !var;
  if (!without_statistics) return;
  for (auto& argument : node.arguments) {
    if (argument.kind == BoundArgument::Kind::training_flag)
      argument.training_in_eval = argument.exported_training;
  }
}

// "cpu", "cuda", as torch.autocast names a device.
c10::DeviceType device_type_named(const std::string& device) {
  try {
    return c10::Device(device).type();
  } catch (const c10::Error&) {
    throw InputError("names a device (\"" + device + "\") that LibTorch does not know");
  }
}

// The device type the graph's first tensor input was on when exported; unset when the metadata has none.
std::optional<std::string> device_of_inputs(const json& graph) {
  const auto& values = graph.value("tensor_values", json::object());
  for (const auto& input : graph.at("inputs")) {
    if (!input.contains("as_tensor")) continue;
    const auto name = input.at("as_tensor").value("name", "");
    if (values.contains(name) && values.at(name).contains("device"))
      return values.at(name).at("device").value("type", "");
  }
  return std::nullopt;
}

// Where a list return's tensors go. A "(Tensor, Tensor[])" return's list the serializer writes without its
// None elements: the named slots take the defined tensors in order.
void store_list(const GraphNode& node, const std::vector<Slot>& slots, std::vector<at::Tensor> elements,
                std::vector<c10::IValue>& values) {
  if (elements.size() != slots.size()) {
    std::erase_if(elements, [](const at::Tensor& element) { return !element.defined(); });
  }
  TORCH_CHECK(elements.size() == slots.size(), node.name, " returned ", elements.size(),
              " tensors where the program names ", slots.size());
  for (size_t j = 0; j < slots.size(); ++j) values[slots[j]] = std::move(elements[j]);
}

}  // namespace

ExportGraph::ExportGraph(const json& graph, std::optional<std::string> exported_on)
    : exported_on_(exported_on ? std::move(exported_on) : device_of_inputs(graph)) {
  for (const auto& input : graph.at("inputs")) {
    std::string kind;
    const auto& value = union_member(input, kind);
    if (kind != "as_tensor" && kind != "as_sym_int")
      throw InputError("the graph has an input of a kind (" + kind + ") that ampbench cannot pass");
    input_slots_.push_back(define(value.value("name", value.value("as_name", ""))));
  }
  for (const auto& node : graph.at("nodes")) {
    // Export-time checks of a tensor's dtype before a .to(): under a mode's autocast the dtypes are not the
    // exported ones, and the eager module makes no such check.
    if (node.at("target") == "torch.ops.aten._assert_tensor_metadata.default") continue;
    nodes_.push_back(compile_node(node));
  }
  for (const auto& output : graph.at("outputs")) {
    if (!output.contains("as_tensor"))
      throw InputError("the graph returns a value that is not a tensor: " + output.dump());
    output_slots_.push_back(slot_of(output.at("as_tensor").at("name").get<std::string>()));
  }
  plan_releases();
}

Slot ExportGraph::define(const std::string& name) {
  if (slots_.contains(name)) throw InputError("the graph defines the value \"" + name + "\" twice");
  slot_names_.push_back(name);
  return slots_[name] = Slot(slot_names_.size() - 1);
}

Slot ExportGraph::slot_of(const std::string& name) const {
  const auto found = slots_.find(name);
  if (found == slots_.end()) throw InputError("reads the value \"" + name + "\" before any node defines it");
  return found->second;
}

GraphNode ExportGraph::compile_node(const json& serialized) {
  GraphNode node;
  node.target = serialized.at("target").get<std::string>();
  node.name = first_output_name(serialized);
  node.module_path = module_path_of(serialized);
  node.layer = node.module_path.empty() ? node.name : node.module_path;
  try {
    const auto& inputs = serialized.at("inputs");
    size_t returns = 1;
    if (const auto python = find_python_operator(node.target); python.function) {
      if (inputs.size() != python.arity)
        throw InputError("takes " + std::to_string(python.arity) + " arguments, the program gives " +
                         std::to_string(inputs.size()));
      node.kind = GraphNode::Kind::python;
      node.python = python.function;
      bind_operands(node, inputs, 0);
    } else if (node.target.starts_with(kHigherOrderPrefix)) {
      bind_subgraph(node, inputs);
      returns = node.subgraph->output_slots().size();
    } else {
      bind_op_arguments(node, inputs);
      returns = node.op->schema().returns().size();
    }
    bind_outputs(node, serialized.at("outputs"), returns);
  } catch (const InputError& e) {
    throw InputError(node_label(node) + ": " + e.problem());
  } catch (const json::exception& e) {
    throw InputError(node_label(node) + ": is not as torch.export writes it: " + std::string(e.what()));
  }
  return node;
}

void ExportGraph::bind_op_arguments(GraphNode& node, const json& inputs) {
  const auto name = operator_name_of(node.target);
  if (!name) throw InputError("is not an op of c10's dispatcher (torch.ops.<namespace>.<op>.<overload>)");
  node.op = c10::Dispatcher::singleton().findSchema(*name);
  if (!node.op) throw InputError("is not an op this LibTorch's dispatcher has");
  if (node.target == "torch.ops.aten.linear.default") node.kind = GraphNode::Kind::linear;
  std::map<std::string, const json*> given;
  for (const auto& input : inputs) given[input.at("name").get<std::string>()] = &input.at("arg");
  auto slot = [this](const std::string& value) { return slot_of(value); };
  for (const auto& argument : node.op->schema().arguments()) {
    const auto found = given.find(argument.name());
    try {
      node.arguments.push_back(found == given.end() ? bind_default(argument)
                                                    : bind_argument(*found->second, argument, slot));
    } catch (const InputError& e) {
      throw InputError("argument \"" + argument.name() + "\" " + e.problem());
    } catch (const json::exception& e) {
      throw InputError("argument \"" + argument.name() +
                       "\" is not as torch.export writes it: " + std::string(e.what()));
    }
    if (found != given.end()) given.erase(found);
  }
  if (!given.empty())
    throw InputError("has an argument \"" + given.begin()->first + "\" its schema does not name");
  keep_batch_statistics_in_eval(node);
}

// Operands without a schema (a Python operator's, a nested graph's), from inputs[first] on.
void ExportGraph::bind_operands(GraphNode& node, const json& inputs, size_t first) {
  const c10::Argument any("operand", c10::AnyType::get());
  auto slot = [this](const std::string& value) { return slot_of(value); };
  for (size_t i = first; i < inputs.size(); ++i)
    node.arguments.push_back(bind_argument(inputs[i].at("arg"), any, slot));
}

// wrap_with_set_grad_enabled(enabled, graph, *operands) and
// wrap_with_autocast(device, dtype, enabled, cache_enabled, graph, *operands), as torch.export writes them.
void ExportGraph::bind_subgraph(GraphNode& node, const json& inputs) {
  const bool grad_mode = node.target == std::string(kHigherOrderPrefix) + "wrap_with_set_grad_enabled";
  if (!grad_mode && node.target != std::string(kHigherOrderPrefix) + "wrap_with_autocast")
    throw InputError(
        "is a higher-order op ampbench does not run (it runs wrap_with_set_grad_enabled and "
        "wrap_with_autocast)");
  const size_t graph_at = grad_mode ? 1 : 4;
  if (inputs.size() <= graph_at || !inputs[graph_at].at("arg").contains("as_graph"))
    throw InputError("does not take its nested graph where torch.export writes it");
  auto constant = [&](size_t i) -> const json& { return inputs[i].at("arg"); };
  if (grad_mode) {
    node.kind = GraphNode::Kind::grad_mode_subgraph;
    node.state.grad_enabled = constant(0).at("as_bool").get<bool>();
  } else {
    node.kind = GraphNode::Kind::autocast_subgraph;
    if (constant(1).contains("as_scalar_type"))
      node.state.autocast_dtype = scalar_type_of(constant(1).at("as_scalar_type").get<int64_t>());
    node.state.autocast_enabled = constant(2).at("as_bool").get<bool>();
    node.state.autocast_cache_enabled = constant(3).at("as_bool").get<bool>();
    const auto device = constant(0).at("as_string").get<std::string>();
    if (exported_on_ && device != *exported_on_) node.state.autocast_device = device_type_named(device);
  }
  node.subgraph =
      std::make_shared<const ExportGraph>(constant(graph_at).at("as_graph").at("graph"), exported_on_);
  bind_operands(node, inputs, graph_at + 1);
  if (node.arguments.size() != node.subgraph->input_slots().size())
    throw InputError("gives " + std::to_string(node.arguments.size()) + " operands to a nested graph of " +
                     std::to_string(node.subgraph->input_slots().size()) + " inputs");
}

void ExportGraph::bind_outputs(GraphNode& node, const json& outputs, size_t returns) {
  if (outputs.size() != returns)
    throw InputError("has " + std::to_string(outputs.size()) + " outputs for " + std::to_string(returns) +
                     " returns");
  for (const auto& output : outputs) {
    OutputSlots slots;
    std::string kind;
    const auto& value = union_member(output, kind);
    if (kind == "as_tensor")
      slots.slot = define(value.at("name").get<std::string>());
    else if (kind == "as_sym_int" || kind == "as_sym_bool" || kind == "as_sym_float")
      slots.slot = define(value.at("as_name").get<std::string>());
    else if (kind == "as_tensors") {
      slots.elements.emplace();
      for (const auto& element : value)
        slots.elements->push_back(define(element.at("name").get<std::string>()));
    } else if (kind != "as_none") {
      throw InputError("has an output of a kind (" + kind + ") that ampbench cannot take");
    }
    node.outputs.push_back(std::move(slots));
  }
}

// Frees each value after the last node that reads it, as eager code's temporaries die when unreferenced,
// so that peak memory is the model's and not the value table's.
void ExportGraph::plan_releases() {
  std::vector<int64_t> last_reader(slot_names_.size(), -1);
  for (size_t i = 0; i < nodes_.size(); ++i) {
    for (const auto& argument : nodes_[i].arguments) {
      for (const auto& element : argument.elements)
        if (element.slot >= 0) last_reader[element.slot] = int64_t(i);
    }
  }
  for (size_t i = 0; i < nodes_.size(); ++i) {  // a value nothing reads goes as soon as it is made
    for (const auto& out : nodes_[i].outputs) {
      if (out.slot >= 0 && last_reader[out.slot] < 0) last_reader[out.slot] = int64_t(i);
      for (const auto slot : out.elements.value_or(std::vector<Slot>{}))
        if (last_reader[slot] < 0) last_reader[slot] = int64_t(i);
    }
  }
  for (const auto slot : output_slots_) last_reader[slot] = -1;
  for (const auto slot : input_slots_) last_reader[slot] = -1;  // the caller's tensors
  for (size_t slot = 0; slot < last_reader.size(); ++slot) {
    if (last_reader[slot] >= 0) nodes_[last_reader[slot]].released.push_back(Slot(slot));
  }
}

namespace {

void run_node(const GraphNode& node, torch::jit::Stack& stack, const RunState& state) {
  switch (node.kind) {
    case GraphNode::Kind::grad_mode_subgraph: {
      at::AutoGradMode grad_mode(node.state.grad_enabled);
      stack = node.subgraph->call(std::move(stack), state);
      return;
    }
    case GraphNode::Kind::autocast_subgraph: {
      const auto device = node.state.autocast_device.value_or(state.device.type());
      // torch.autocast's default dtype: bf16 on the CPU, fp16 on a GPU.
      const auto fallback = device == c10::DeviceType::CPU ? c10::kBFloat16 : c10::kHalf;
      const auto dtype = node.state.autocast_enabled
                             ? std::optional<c10::ScalarType>(node.state.autocast_dtype.value_or(fallback))
                             : std::nullopt;
      amp::AutocastScope autocast(device, dtype, node.state.autocast_cache_enabled);
      stack = node.subgraph->call(std::move(stack), state);
      return;
    }
    case GraphNode::Kind::op:
      node.op->callBoxed(stack);
      return;
    case GraphNode::Kind::python:
      stack = {node.python(stack)};
      return;
    case GraphNode::Kind::linear: {
      const auto bias = stack[2].isNone() ? torch::Tensor() : stack[2].toTensor();
      // The node is the layer: its weight may be computed each call (weight_norm, a merged LoRA).
      stack = {amp::linear(stack[0].toTensor(), stack[1].toTensor(), bias, &node.layer)};
      return;
    }
  }
}

}  // namespace

std::vector<c10::IValue> ExportGraph::call(std::vector<c10::IValue> inputs, const RunState& state) const {
  std::vector<c10::IValue> values(slot_count());
  for (size_t i = 0; i < input_slots_.size(); ++i) values[input_slots_[i]] = std::move(inputs[i]);
  run(values, state);
  std::vector<c10::IValue> outputs;
  for (const auto slot : output_slots_) outputs.push_back(std::move(values[slot]));
  return outputs;
}

void ExportGraph::run(std::vector<c10::IValue>& values, const RunState& state) const {
  torch::jit::Stack stack;
  for (const auto& node : nodes_) {
    stack.clear();
    for (const auto& argument : node.arguments) stack.push_back(value_of(argument, values, state));
    {
      const numerics::NodeScope scope(node.name, node.module_path);  // names the node to an observer
      run_node(node, stack, state);
    }
    for (size_t i = 0; i < node.outputs.size(); ++i) {
      const auto& out = node.outputs[i];
      if (out.elements) {
        store_list(node, *out.elements, stack[i].toTensorVector(), values);
      } else if (out.slot >= 0) {
        values[out.slot] = std::move(stack[i]);
      }
    }
    for (const auto slot : node.released) values[slot] = c10::IValue();
  }
}

}  // namespace ampbench::models
