#pragma once

#include <cstdint>
#include <variant>

#include <torch/arg.h>

#include "optim/weight_rounding.h"

// What a config chooses of the optimizer, as plain data: the optimizers themselves are in optimizer.h.
// TORCH_ARG (torch/arg.h, a macro and <utility>) gives the chained setters.
namespace ampbench::optim {

// SGD with momentum and L2 weight decay; the defaults are ampbench's (a config's "sgd").
struct SgdOptions {
  TORCH_ARG(double, lr) = 0.05;
  TORCH_ARG(double, momentum) = 0.9;
  TORCH_ARG(double, weight_decay) = 5e-4;
};

// AdamW with decoupled weight decay; the defaults are torch.optim.AdamW's.
struct AdamWOptions {
  TORCH_ARG(double, lr) = 1e-3;
  TORCH_ARG(double, beta1) = 0.9;
  TORCH_ARG(double, beta2) = 0.999;
  TORCH_ARG(double, eps) = 1e-8;
  TORCH_ARG(double, weight_decay) = 1e-2;
};

// Which optimizer, with its settings.
using OptimizerOptions = std::variant<SgdOptions, AdamWOptions>;

// Weight rounding and its seed (stochastic rounding's generator); the defaults suit fp32 parameters.
struct RoundingOptions {
  TORCH_ARG(WeightRounding, rounding) = WeightRounding::nearest;
  TORCH_ARG(uint64_t, seed) = 0;
};

}  // namespace ampbench::optim
