#include "models/mlp.h"

#include <functional>
#include <numeric>

namespace ampbench::models {

MlpImpl::MlpImpl(const MlpOptions& options) {
  int64_t in = options.in_features();
  for (int64_t i = 0; i < options.depth(); ++i) {
    layers_->push_back(torch::nn::Linear(in, options.width()));
    layers_->push_back(torch::nn::ReLU(torch::nn::ReLUOptions().inplace(true)));
    in = options.width();
  }
  layers_->push_back(torch::nn::Linear(in, options.num_classes()));
  register_module("layers", layers_);
}

torch::Tensor MlpImpl::forward(const torch::Tensor& inputs) { return layers_->forward(inputs.flatten(1)); }

ModelEntry mlp_entry() {
  ModelEntry entry;
  entry.name = "mlp";
  entry.description = "multi-layer perceptron on flattened inputs (options: width, depth)";
  entry.resolve_options = [](config::ObjectReader& options, const InputSpec&, const std::string&) {
    nlohmann::json resolved;
    resolved["width"] = options.integer("width", 512, 1, 1 << 16);
    resolved["depth"] = options.integer("depth", 2, 0, 64);
    options.finish();
    return resolved;
  };
  auto options_of = [](const nlohmann::json& options, const InputSpec& input) {
    int64_t features = std::accumulate(input.sample_shape.begin(), input.sample_shape.end(), int64_t{1},
                                       std::multiplies<>());
    return MlpOptions(features, input.num_classes)
        .width(options.at("width").get<int64_t>())
        .depth(options.at("depth").get<int64_t>());
  };
  entry.build = [options_of](const nlohmann::json& options,
                             const InputSpec& input) -> std::shared_ptr<Network> {
    return std::make_shared<MlpImpl>(options_of(options, input));
  };
  entry.forward_macs = [options_of](const nlohmann::json& options, const InputSpec& input) {
    auto o = options_of(options, input);
    int64_t macs = 0, in = o.in_features();
    for (int64_t i = 0; i < o.depth(); ++i, in = o.width()) macs += in * o.width();
    return macs + in * o.num_classes();
  };
  return entry;
}

}  // namespace ampbench::models
