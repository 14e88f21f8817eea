#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "amp/precision_mode.h"
#include "config/data_section.h"
#include "config/model_section.h"
#include "config/outputs_section.h"
#include "config/precision_section.h"
#include "config/train_section.h"
#include "util/input_error.h"

namespace ampbench::config {

struct ExperimentConfig {
  std::string name;
  uint64_t seed = 0;
  int64_t repeats = 1;  // trials per mode, interleaved across modes
  ModelConfig model;
  data::DataOptions data;
  TrainConfig train;
  PrecisionConfig precision;
  ProfileConfig profile;
  NumericsConfig numerics;
  std::string device = "auto";
  std::string output_dir = "results";
  Gates gates;
  // Dense peak TFLOP/s per mode for MFU, overriding the built-in table of GPUs (config or --peak-tflops).
  std::map<amp::PrecisionMode, double> peak_tflops;
};

// Parses and validates a whole config: unknown keys, wrong types, out-of-range values, unknown modes or
// models and combinations that cannot run all throw util::InputError naming the JSON pointer.
ExperimentConfig parse_experiment_config(const nlohmann::json& document);
// Throws util::InputError when the batch size or the warm-up steps do not fit `train_samples` (checked
// when parsing where the data's size is known, and again once file data is read).
void check_fits(const ExperimentConfig& config, int64_t train_samples);
// Reads the file (util::InputError when it is missing, unreadable or not valid JSON), then parses it.
nlohmann::json read_config_file(const std::filesystem::path& path);
// The resolved config, with every default written out: what --dry-run prints and reports record.
nlohmann::json to_json(const ExperimentConfig& config);

}  // namespace ampbench::config
