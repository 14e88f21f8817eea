#pragma once

#include <cstdint>
#include <optional>

#include <nlohmann/json.hpp>

#include "optim/optimizer_options.h"
#include "util/json_reader.h"

// The config's "train": how long and how each mode trains; the defaults are the struct's (the optimizers'
// in optim::SgdOptions and optim::AdamWOptions).
namespace ampbench::config {

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

TrainConfig parse_train(util::ObjectReader train);
// "train" as the resolved config writes it.
nlohmann::json train_json(const TrainConfig& t);

}  // namespace ampbench::config
