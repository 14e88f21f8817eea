#pragma once

#include <cstdint>

#include <nlohmann/json.hpp>

#include "models/network.h"
#include "models/registry.h"
#include "util/json_reader.h"

namespace ampbench::models {

struct MlpOptions {
  MlpOptions(int64_t in_features, int64_t num_classes)
      : in_features_(in_features), num_classes_(num_classes) {}
  TORCH_ARG(int64_t, in_features);
  TORCH_ARG(int64_t, num_classes);
  TORCH_ARG(int64_t, width) = 512;  // units in each hidden layer
  TORCH_ARG(int64_t, depth) = 2;    // hidden layers
  TORCH_ARG(double, dropout) = 0;   // the probability each hidden unit is dropped in training
};

// Flatten, then `depth` x (Linear + ReLU [+ Dropout]) of `width` units, then a Linear classifier.
class MlpImpl : public Network {
 public:
  explicit MlpImpl(const MlpOptions& options);
  torch::Tensor forward(const torch::Tensor& inputs) override;

 private:
  torch::nn::Sequential layers_;
};

// Reads width, depth and dropout from a config's model.options (defaults above); the input fixes the rest.
MlpOptions read_mlp_options(util::ObjectReader& options, const InputSpec& input);
std::shared_ptr<Network> build_network(const MlpOptions& options);
double forward_macs_of(const MlpOptions& options, const InputSpec& input);
ModelSize model_size_of(const MlpOptions& options);
nlohmann::json options_json_of(const MlpOptions& options);

ModelEntry mlp_entry();

}  // namespace ampbench::models
