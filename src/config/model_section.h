#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "data/data_options.h"
#include "models/registry.h"
#include "util/json_reader.h"

// The config's "model", read together with its "data": a reference model is read for the data, a model
// that fixes its own input (an exported one) before it. Each model's options and their defaults are its
// own Options struct's (models/).
namespace ampbench::config {

struct ModelConfig {
  std::string type;
  std::shared_ptr<const models::ModelSpec> spec;  // every option resolved for the configured data
};

// Reads "model" and "data" from the config's root into `model_config` and `data` (`seed` is the run's, the
// data's default seed).
void parse_model_and_data(util::ObjectReader& root, uint64_t seed, ModelConfig& model_config,
                          data::DataOptions& data);

// "model" as the resolved config writes it.
nlohmann::json model_json(const ModelConfig& model);

}  // namespace ampbench::config
