#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "amp/grad_scaler.h"
#include "amp/precision_mode.h"
#include "data/data_options.h"
#include "models/registry.h"
#include "optim/optimizer.h"
#include "util/input_error.h"

namespace ampbench::config {

struct ModelConfig {
  std::string type;
  std::shared_ptr<const models::ModelSpec> spec;  // every option resolved for the configured data
};

struct TrainConfig {
  int64_t epochs = 2;
  int64_t batch_size = 64;
  optim::OptimizerOptions optimizer = optim::SgdOptions();
  std::optional<double> clip_grad_norm;
  int64_t accumulation_steps = 1;
  int64_t warmup_steps = 0;        // first-epoch steps left out of the timing
  bool cudnn_benchmark = false;    // let cuDNN time its algorithms per shape and keep the fastest
  bool channels_last = false;      // NHWC weights and inputs (CNNs): what tensor-core convolutions prefer
  std::optional<int64_t> threads;  // LibTorch's intra-op threads for the run; unset: LibTorch's own choice
};

struct PrecisionConfig {
  std::vector<amp::PrecisionMode> modes = amp::default_precision_modes();
  amp::GradScalerOptions grad_scaler;
  // Fidelity passes when |val loss - fp32's| is at most this (in the loss's units, nats).
  double fidelity_tolerance = 0.05;
  // Seeds each mode is trained from for the fidelity verdict (initial weights and batch order change with
  // the seed, the same seeds for every mode); the first is the run's seed, whose trials are the timed ones.
  int64_t fidelity_seeds = 1;
};

// The profiled pass ("profile" in the config, or --profile): after the timed trials, each mode trains
// warmup_steps untimed steps and then `steps` steps under the profiler, from the same initial weights and
// batches as its trials. Absent: no profiled pass.
struct ProfileConfig {
  int64_t steps = 0;  // 0: off
  int64_t warmup_steps = 3;
  static constexpr int64_t kDefaultSteps = 10;
  bool enabled() const { return steps > 0; }
};

// The thresholds a CI job can gate on, each a figure of a mode against fp32 (config key "gates").
enum class Gate {
  min_speedup,         // speed-up >= the threshold
  max_val_loss_delta,  // val loss - fp32's <= the threshold
  max_memory_ratio,    // peak memory / fp32's <= the threshold
  // The profiled pass's share of matrix FLOPs that ran in 16-bit >= the threshold (needs "profile")
  min_low_precision_flop_share,
};
std::string_view to_string(Gate gate);

// Per gate, the threshold of each mode it is set for.
using Gates = std::map<Gate, std::map<amp::PrecisionMode, double>>;

struct ExperimentConfig {
  std::string name;
  uint64_t seed = 0;
  int64_t repeats = 1;  // trials per mode, interleaved across modes
  ModelConfig model;
  data::DataOptions data;
  TrainConfig train;
  PrecisionConfig precision;
  ProfileConfig profile;
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
// What the data gives a model: its samples' shape, classes or vocabulary, and which kind of data it is.
models::InputSpec input_spec(const data::DataOptions& data);

}  // namespace ampbench::config
