#include "models/mlp.h"

#include <functional>
#include <numeric>

#include "amp/float8_linear.h"

namespace ampbench::models {

MlpImpl::MlpImpl(const MlpOptions& options) {
  int64_t in = options.in_features();
  for (int64_t i = 0; i < options.depth(); ++i) {
    layers_->push_back(torch::nn::Linear(in, options.width()));
    layers_->push_back(torch::nn::ReLU(torch::nn::ReLUOptions().inplace(true)));
    if (options.dropout() > 0) layers_->push_back(torch::nn::Dropout(options.dropout()));
    in = options.width();
  }
  layers_->push_back(torch::nn::Linear(in, options.num_classes()));
  register_module("layers", layers_);
}

torch::Tensor MlpImpl::forward(const torch::Tensor& inputs) {
  auto x = inputs.flatten(1);
  for (auto& layer : *layers_) {
    const auto* linear = layer.ptr()->as<torch::nn::LinearImpl>();
    x = linear ? amp::linear(x, linear->weight, linear->bias) : layer.forward(x);
  }
  return x;
}

MlpOptions read_mlp_options(util::ObjectReader& options, const InputSpec& input) {
  const int64_t features =
      std::accumulate(input.sample_shape.begin(), input.sample_shape.end(), int64_t{1}, std::multiplies<>());
  MlpOptions out(features, input.num_classes);
  out.width(options.integer("width", out.width(), 1, 1 << 16));
  out.depth(options.integer("depth", out.depth(), 0, 64));
  out.dropout(options.number("dropout", out.dropout(), 0, 0.99));
  options.finish();
  return out;
}

std::shared_ptr<Network> build_network(const MlpOptions& options) {
  return std::make_shared<MlpImpl>(options);
}

double forward_macs_of(const MlpOptions& o, const InputSpec&) {
  double macs = 0, in = double(o.in_features());
  for (int64_t i = 0; i < o.depth(); ++i, in = double(o.width())) macs += in * double(o.width());
  return macs + in * double(o.num_classes());
}

ModelSize model_size_of(const MlpOptions& o) {
  // Each Linear layer: a weight of in x out and a bias of out.
  double parameters = 0, in = double(o.in_features());
  for (int64_t i = 0; i < o.depth(); ++i, in = double(o.width())) parameters += (in + 1) * double(o.width());
  return {parameters + (in + 1) * double(o.num_classes()), 0};
}

// dropout only where it is on: a config without it is the same experiment (and config hash) as before it
// existed.
nlohmann::json options_json_of(const MlpOptions& o) {
  nlohmann::json out{{"width", o.width()}, {"depth", o.depth()}};
  if (o.dropout() > 0) out["dropout"] = o.dropout();
  return out;
}

ModelEntry mlp_entry() {
  ModelEntry entry;
  entry.name = "mlp";
  entry.description = "multi-layer perceptron on flattened inputs (options: width, depth, dropout)";
  entry.read = [](util::ObjectReader& options, const InputSpec& input) -> std::shared_ptr<const ModelSpec> {
    return std::make_shared<ModelSpecOf<MlpOptions>>(read_mlp_options(options, input), input);
  };
  return entry;
}

}  // namespace ampbench::models
