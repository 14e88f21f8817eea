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
  entry.build = [](const nlohmann::json& options, const InputSpec& input) -> std::shared_ptr<Network> {
    int64_t features = std::accumulate(input.sample_shape.begin(), input.sample_shape.end(), int64_t{1},
                                       std::multiplies<>());
    return std::make_shared<MlpImpl>(MlpOptions(features, input.num_classes)
                                         .width(options.at("width").get<int64_t>())
                                         .depth(options.at("depth").get<int64_t>()));
  };
  return entry;
}

}  // namespace ampbench::models
