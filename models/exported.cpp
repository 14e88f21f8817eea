#include "models/exported.h"

#include <unordered_map>

#include "util/input_error.h"

namespace ampbench::models {
namespace {

using util::InputError;

const torch::Tensor& tensor_named(const ExportArchive& archive, const std::string& name) {
  for (const auto* tensors : {&archive.weights, &archive.constants}) {
    for (const auto& [tensor_name, tensor] : *tensors)
      if (tensor_name == name) return tensor;
  }
  throw InputError("the archive has no tensor \"" + name + "\"");  // compile_program checked: unreachable
}

}  // namespace

ExportedNetwork::ExportedNetwork(std::shared_ptr<const ExportedProgram> program, const ExportArchive& archive)
    : program_(std::move(program)) {
  // Tied weights are one tensor of the archive: one parameter here, under its first name, as PyTorch's
  // named_parameters() lists it, so the optimizer steps it once with both uses' gradients.
  std::unordered_map<const c10::TensorImpl*, torch::Tensor> made;
  auto add_state = [&](const StateInput& input, bool parameter) {
    const auto& stored = tensor_named(archive, input.name);
    auto [made_from, fresh] = made.try_emplace(stored.unsafeGetTensorImpl());
    if (fresh) made_from->second = state_tensor(input.name, stored, parameter);
    state_.emplace_back(input.slot, made_from->second);
    return fresh;
  };
  for (const auto& input : program_->parameters) add_state(input, true);
  for (const auto& input : program_->buffers) add_state(input, false);
  for (const auto& input : program_->constants) {
    if (add_state(input, false)) constant_elements_ += state_.back().second.numel();
  }
  const auto buffers = named_buffers();  // compile_program checked that each updated buffer is one
  for (const auto& mutation : program_->buffer_mutations)
    buffer_updates_.emplace_back(mutation.slot, buffers[mutation.name]);
}

// The module that holds `name`'s last part, made on the way ("layer1.0.conv1.weight": layer1 -> 0 -> conv1),
// so that state keeps its exported names.
torch::nn::Module& ExportedNetwork::owner_of(const std::string& name) {
  torch::nn::Module* owner = this;
  size_t start = 0;
  for (auto dot = name.find('.'); dot != std::string::npos; start = dot + 1, dot = name.find('.', start)) {
    const auto part = name.substr(start, dot - start);
    auto children = owner->named_children();
    const auto* child = children.find(part);
    owner = child ? child->get() : owner->register_module(part, std::make_shared<torch::nn::Module>()).get();
  }
  return *owner;
}

torch::Tensor ExportedNetwork::state_tensor(const std::string& name, const torch::Tensor& stored,
                                            bool parameter) {
  auto& owner = owner_of(name);
  const auto leaf = name.substr(name.rfind('.') + 1);
  auto tensor = stored.detach().clone();
  if (!parameter) return owner.register_buffer(leaf, tensor);
  // Master weights: whatever the archive stored them in, they train in fp32; a frozen one stays frozen.
  if (tensor.is_floating_point()) tensor = tensor.to(torch::kFloat32);
  return owner.register_parameter(leaf, tensor, stored.requires_grad());
}

torch::Tensor ExportedNetwork::forward(const torch::Tensor& inputs) {
  const auto& graph = *program_->graph;
  std::vector<c10::IValue> values(graph.slot_count());
  for (const auto& [slot, tensor] : state_) values[slot] = tensor;
  values[program_->batch_input] = inputs;
  graph.run(values, RunState{is_training(), inputs.device()});
  if (!buffer_updates_.empty()) {
    torch::NoGradGuard no_grad;
    for (const auto& [slot, buffer] : buffer_updates_) buffer.copy_(values[slot].toTensor());
  }
  return values[program_->logits_output].toTensor();
}

}  // namespace ampbench::models
