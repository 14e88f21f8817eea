#pragma once

#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include <ATen/core/dispatch/Dispatcher.h>
#include <nlohmann/json.hpp>

#include "models/export_binding.h"
#include "models/python_operators.h"

namespace ampbench::models {

// Where one return of a node goes: a slot, a slot per element of a returned list, or nowhere (unused).
struct OutputSlots {
  Slot slot = -1;
  std::optional<std::vector<Slot>> elements;
};

class ExportGraph;

// The state a higher-order node runs its nested graph under: grad mode (wrap_with_set_grad_enabled) or
// autocast (wrap_with_autocast). An autocast region is on the run's device, whatever device the program was
// exported on, as every device the program names is; its dtype, when the program gives none, is that
// device's default.
struct SubgraphState {
  bool grad_enabled = true;
  bool autocast_enabled = false;
  std::optional<c10::ScalarType> autocast_dtype;
  // The device whose autocast the region sets: unset when the region names the device the program was
  // exported on (its tensors' device: the run's device then), else the one it names (torch.autocast("cpu")
  // in a program exported on a GPU), which on a run elsewhere leaves the run's ops alone, as in eager code.
  std::optional<c10::DeviceType> autocast_device;
  bool autocast_cache_enabled = true;
};

// One node, ready to run: its operator found once, its arguments bound once.
struct GraphNode {
  enum class Kind { op, linear, python, grad_mode_subgraph, autocast_subgraph };
  std::string name;    // what errors call it: its first output's name
  std::string target;  // as the program names it: "torch.ops.aten.conv2d.default"
  // The module that ran it ("layer1.0.conv1", nn_module_stack's innermost); "" at the root.
  std::string module_path;
  std::string layer;  // a linear node's name in the reports: its module path, else its own name
  Kind kind = Kind::op;
  std::optional<c10::OperatorHandle> op;        // for `op`
  PythonOperator python = nullptr;              // for `python`
  std::shared_ptr<const ExportGraph> subgraph;  // for the two subgraph kinds, with the state to run it in
  SubgraphState state;
  std::vector<BoundArgument> arguments;  // in the schema's order
  std::vector<OutputSlots> outputs;      // one per return
  std::vector<Slot> released;            // values no later node reads: freed after this one runs
};

// A torch.export graph (schema.yaml's Graph) compiled to run node by node through c10's dispatcher, where
// each op meets autograd and autocast as eager code's does; linear nodes go through amp::linear, so the fp8
// modes reach them. Compiling finds every op and binds every argument, so a run does no lookups.
class ExportGraph {
 public:
  // Throws util::InputError naming the node, its op and the argument for anything it cannot run.
  // `exported_on` is the device type the program's tensors were on ("cpu", "cuda"); unset, the graph's
  // inputs' metadata says.
  explicit ExportGraph(const nlohmann::json& graph, std::optional<std::string> exported_on = std::nullopt);

  // The slot of a named input or computed value; InputError for a name the graph does not define.
  Slot slot_of(const std::string& name) const;
  const std::string& name_of(Slot slot) const { return slot_names_.at(size_t(slot)); }
  const std::vector<Slot>& input_slots() const { return input_slots_; }
  const std::vector<Slot>& output_slots() const { return output_slots_; }
  const std::vector<GraphNode>& nodes() const { return nodes_; }
  size_t slot_count() const { return slot_names_.size(); }

  // Runs every node on `values` (slot_count() of them, the inputs' slots filled); `state` gives what the
  // nodes' training flags (batch norm's statistics, dropout) and devices pass. Leaves the outputs in their
  // slots.
  void run(std::vector<c10::IValue>& values, const RunState& state) const;
  // Runs the graph as a nested graph is run: `inputs` in its inputs' order, its outputs returned.
  std::vector<c10::IValue> call(std::vector<c10::IValue> inputs, const RunState& state) const;

 private:
  Slot define(const std::string& name);
  GraphNode compile_node(const nlohmann::json& node);
  void bind_op_arguments(GraphNode& node, const nlohmann::json& inputs);
  void bind_operands(GraphNode& node, const nlohmann::json& inputs, size_t first);
  void bind_subgraph(GraphNode& node, const nlohmann::json& inputs);
  void bind_outputs(GraphNode& node, const nlohmann::json& outputs, size_t returns);
  void plan_releases();

  std::unordered_map<std::string, Slot> slots_;
  std::vector<std::string> slot_names_;
  std::vector<Slot> input_slots_;
  std::vector<Slot> output_slots_;
  std::vector<GraphNode> nodes_;
  std::optional<std::string> exported_on_;
};

}  // namespace ampbench::models
