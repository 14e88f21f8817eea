#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "config/json_reader.h"
#include "models/network.h"

namespace ampbench::models {

// One reference model: how to read its options from a config and how to build it.
struct ModelEntry {
  std::string name;
  std::string description;
  // Reads model.options strictly (ConfigError with the JSON path on any problem), checks that the model
  // fits the input, and returns the options with every default filled in.
  std::function<nlohmann::json(config::ObjectReader& options, const InputSpec& input,
                               const std::string& input_path)>
      resolve_options;
  // Builds a freshly initialised model from resolved options (LibTorch's global RNG decides the weights).
  std::function<std::shared_ptr<Network>(const nlohmann::json& options, const InputSpec& input)> build;
  // Multiply-adds of one sample's forward pass, counted analytically: every convolution, linear layer and
  // attention matmul (what FLOPs and MFU are computed from: 2 FLOPs per multiply-add, training = 3x).
  std::function<int64_t(const nlohmann::json& options, const InputSpec& input)> forward_macs;
  bool language_model = false;  // takes token sequences (and predicts the next token), not features
};

const std::vector<ModelEntry>& model_registry();
// nullptr when no model has that name.
const ModelEntry* find_model(const std::string& name);
std::string model_names();

}  // namespace ampbench::models
