#include "passes/departure.h"

#include <cmath>
#include <set>

#include "train/classification_loss.h"

namespace ampbench::train {
namespace {

// Sums in fp32 on the device, read back as a double: no fp64 copy of a layer's tensors is made.
double sum_of(const torch::Tensor& x) { return x.sum().item<double>(); }

// A weight parameter's name without ".weight", and its index among the model's parameters.
std::optional<std::pair<std::string, size_t>> parameter_named_by(const torch::nn::Module& model,
                                                                 const void* weight) {
  const auto parameters = model.named_parameters();
  for (size_t i = 0; i < parameters.size(); ++i) {
    if (parameters[i].value().unsafeGetTensorImpl() != weight) continue;
    std::string name = parameters[i].key();
    if (name.ends_with(".weight")) name.resize(name.size() - 7);
    return std::make_pair(name, i);
  }
  return std::nullopt;
}

LayerDeparture& layer_named(std::vector<LayerDeparture>& layers, const std::string& name) {
  for (auto& layer : layers)
    if (layer.layer == name) return layer;
  layers.push_back({});
  layers.back().layer = name;
  return layers.back();
}

// Unscaled: the sampled steps' loss scales differ (a skipped step backs it off, a run of good ones grows
// it), and a sum of gradients at different scales weights each step by its scale. A step whose gradient
// overflowed (the scaler skips it) has no direction to compare: it adds nothing.
void add_gradient(LayerDeparture& into, const torch::Tensor& mode, const torch::Tensor& fp32,
                  std::optional<double> loss_scale) {
  if (!mode.defined() || !fp32.defined()) return;
  auto a = mode.to(torch::kFloat);
  if (loss_scale) a = a / *loss_scale;
  const auto b = fp32.to(torch::kFloat);
  if (!(torch::isfinite(a).all() & torch::isfinite(b).all()).item<bool>()) return;
  into.gradient_dot += sum_of(a * b);
  into.gradient_squares += sum_of(a.square());
  into.fp32_gradient_squares += sum_of(b.square());
}

}  // namespace

std::optional<double> LayerDeparture::output_relative_error() const {
  if (!(output_squares > 0)) return std::nullopt;
  return std::sqrt(output_error_squares / output_squares);
}

std::optional<double> LayerDeparture::gradient_cosine() const {
  if (!(gradient_squares > 0) || !(fp32_gradient_squares > 0)) return std::nullopt;
  return gradient_dot / std::sqrt(gradient_squares * fp32_gradient_squares);
}

Fp32Twin::Fp32Twin(std::shared_ptr<models::Network> model) : model_(std::move(model)) {}

amp::LinearObservation Fp32Twin::run(const models::Network& mode_model, const torch::Tensor& inputs,
                                     const torch::Tensor& labels) {
  {
    torch::NoGradGuard no_grad;
    const auto from = mode_model.parameters(), to = model_->parameters();
    for (size_t i = 0; i < to.size(); ++i) to[i].copy_(from[i]);
    const auto from_buffers = mode_model.buffers(), to_buffers = model_->buffers();
    for (size_t i = 0; i < to_buffers.size(); ++i) to_buffers[i].copy_(from_buffers[i]);
  }
  model_->train(mode_model.is_training());
  model_->zero_grad();
  amp::LinearObservation observation;
  {
    amp::LinearObserver observer(observation);
    const auto x = inputs.is_floating_point() ? inputs.to(torch::kFloat32) : inputs;
    classification_loss(model_->forward(x), labels).backward();
  }
  return observation;
}

std::vector<torch::Tensor> gradients_of(const models::Network& model) {
  std::vector<torch::Tensor> out;
  for (const auto& p : model.parameters())
    out.push_back(p.grad().defined() ? p.grad().clone() : torch::Tensor());
  return out;
}

void add_departures(std::vector<LayerDeparture>& layers, const amp::LinearObservation& mode,
                    const amp::LinearObservation& fp32, const models::Network& mode_model,
                    const std::vector<torch::Tensor>& before, std::optional<double> loss_scale,
                    const Fp32Twin& twin) {
  const auto calls = std::min(mode.outputs.size(), fp32.outputs.size());
  const auto mode_parameters = mode_model.parameters(), twin_parameters = twin.model().parameters();
  std::map<const void*, std::string> names;
  std::set<std::string> gradient_taken;
  for (size_t i = 0; i < calls; ++i) {
    const auto& call = mode.outputs[i];
    // By its weight: an exported program's layer is keyed by its node, and its weight is the parameter.
    const auto parameter = parameter_named_by(mode_model, call.weight);
    const auto name = !call.name.empty() ? call.name : parameter ? parameter->first : "(unnamed)";
    names[call.key] = name;
    auto& layer = layer_named(layers, name);
    const auto& reference = fp32.outputs[i].output;  // fp32, as the observer copied both
    layer.output_error_squares += sum_of((call.output - reference).square());
    layer.output_squares += sum_of(reference.square());
    // A layer called more than once in a step (a shared weight) takes its weight gradient once.
    if (!parameter || !gradient_taken.insert(name).second) continue;
    const auto index = parameter->second;
    auto added = mode_parameters[index].grad();
    if (added.defined() && before[index].defined()) added = added - before[index];
    add_gradient(layer, added, twin_parameters[index].grad(), loss_scale);
  }
  for (const auto& [where, figures] : mode.operands) {
    const auto name = names.count(where.first) ? names[where.first] : "(unnamed)";
    auto& into = layer_named(layers, name).operands[where.second];
    into.blocks += figures.blocks;
    into.saturated += figures.saturated;
    into.flushed += figures.flushed;
    into.error_squares += figures.error_squares;
    into.squares += figures.squares;
    into.largest = std::max(into.largest, figures.largest);
  }
}

}  // namespace ampbench::train
