#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include <ATen/record_function.h>
#include <torch/torch.h>

#include "numerics/op_facts.h"
#include "numerics/phase.h"

namespace ampbench::numerics {

// Tells the ops an observer sees apart by where they ran: a forward op by the weights it reads (a module's
// parameters, or casts and views made of them alone), by the exported node around it, or else by the last
// layer before it; a backward op by its autograd node's forward op (their sequence numbers). `parameters`
// are named as the model names them ("layers.2.weight"). Not thread-safe: its observer serializes calls.
class SiteTracker {
 public:
  explicit SiteTracker(const std::vector<std::pair<std::string, torch::Tensor>>& parameters);

  struct Start {
    OpSite site;
    bool all_from_weights = false;  // every tensor argument is a module's weight or derived from one alone
    std::string module_of_weights;
  };
  // An op starts with these tensor arguments in `phase`.
  Start start(const std::vector<at::Tensor>& inputs, Phase phase, int64_t sequence_number);
  // The op ends: a forward op that read weights alone made more of them (a cast, a view).
  void end(const Start& start, const std::vector<at::Tensor>& outputs, Phase phase);

 private:
  OpSite site_of(const Start& start, Phase phase) const;

  std::unordered_map<const c10::TensorImpl*, std::string> weights_;  // a weight, or a cast/view of one
  std::vector<at::Tensor> kept_;  // keeps those tensors alive: a freed one's address could name another
  std::unordered_map<int64_t, OpSite> forward_sites_;  // by sequence number: a backward node's forward op
  std::string last_module_;                            // the last module whose weights a forward op read
};

// The autograd node running on this thread (RecordScope::BACKWARD_FUNCTION), for the observers' callbacks.
void enter_backward_node(const at::RecordFunction& fn);
void leave_backward_node();
void clear_backward_nodes();
// The autograd engine's step around a node ("autograd::engine::evaluate_function: AddmmBackward0"): after
// the node it reduces the node's gradients to its inputs' shapes (a broadcast bias's sum), ops that belong to
// the node and run while the step is open. A node inside the step lends it its name and sequence number.
bool is_engine_step(const at::RecordFunction& fn);
void enter_engine_step();
void leave_engine_step();

// An observer's global RecordFunction callbacks, on every op and autograd node with their inputs and
// outputs; installing also clears the backward-node stack and marks an observer active (observing()).
// `who` names the observer in the error when another is active already: they would not nest.
at::CallbackHandle install_observer(at::RecordFunctionCallback::StartCallback start,
                                    at::RecordFunctionCallback::EndCallback end, const char* who);
void remove_observer(at::CallbackHandle handle);
// The innermost one: (name, sequence number); empty outside backward nodes.
std::optional<std::pair<std::string, int64_t>> current_backward_node();

// The tensors among an op's arguments or results, tensor lists unpacked.
std::vector<at::Tensor> tensors_in(c10::ArrayRef<const c10::IValue> values);
std::vector<at::Tensor> tensors_in(const std::vector<c10::IValue>& values);

// A model's parameters by name ("layers.2.weight"), as the observers take them.
std::vector<std::pair<std::string, torch::Tensor>> named_parameters(const torch::nn::Module& model);

// The forward part of a step: forward, loss, validation.
bool is_forward(Phase phase);

}  // namespace ampbench::numerics
