#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "amp/grad_scaler.h"
#include "amp/precision_mode.h"
#include "config/config_error.h"
#include "data/data_options.h"
#include "report/gates.h"

namespace ampbench::config {

struct ModelConfig {
  std::string type;
  nlohmann::json options;  // resolved by the model's registry entry: every default filled in
};

enum class OptimizerKind { sgd, adamw };

struct OptimizerConfig {
  OptimizerKind kind = OptimizerKind::sgd;
  double lr = 0.05;
  double weight_decay = 5e-4;
  double momentum = 0.9;  // sgd only
  double beta1 = 0.9;     // adamw only
  double beta2 = 0.999;   // adamw only
  double eps = 1e-8;      // adamw only
};

struct TrainConfig {
  int64_t epochs = 2;
  int64_t batch_size = 64;
  OptimizerConfig optimizer;
  std::optional<double> clip_grad_norm;
  int64_t accumulation_steps = 1;
  int64_t warmup_steps = 0;      // first-epoch steps left out of the timing
  bool cudnn_benchmark = false;  // let cuDNN time its algorithms per shape and keep the fastest
  bool channels_last = false;    // NHWC weights and inputs (CNNs): what tensor-core convolutions prefer
};

struct PrecisionConfig {
  std::vector<amp::PrecisionMode> modes = amp::all_precision_modes();
  amp::GradScalerOptions grad_scaler;
  // Fidelity passes when |val loss - fp32's| is at most this (in the loss's units, nats).
  double fidelity_tolerance = 0.05;
};

struct ExperimentConfig {
  std::string name;
  uint64_t seed = 0;
  int64_t repeats = 1;  // trials per mode, interleaved across modes
  ModelConfig model;
  data::DataOptions data;
  TrainConfig train;
  PrecisionConfig precision;
  std::string device = "auto";
  std::string output_dir = "results";
  report::Gates gates;
  // Dense peak TFLOP/s per mode for MFU, overriding the built-in table of GPUs (config or --peak-tflops).
  std::map<amp::PrecisionMode, double> peak_tflops;
};

// Parses and validates a whole config: unknown keys, wrong types, out-of-range values, unknown modes or
// models and combinations that cannot run all throw ConfigError naming the JSON pointer.
ExperimentConfig parse_experiment_config(const nlohmann::json& document);
// Throws ConfigError when the batch size or the warm-up steps do not fit `train_samples` (checked when
// parsing where the data's size is known, and again once file data is read).
void check_fits(const ExperimentConfig& config, int64_t train_samples);
// Reads the file (ConfigError when it is missing, unreadable or not valid JSON), then parses it.
nlohmann::json read_config_file(const std::filesystem::path& path);
// The resolved config, with every default written out: what --dry-run prints and reports record.
nlohmann::json to_json(const ExperimentConfig& config);

}  // namespace ampbench::config
