#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "amp/grad_scaler_options.h"
#include "amp/linear_recipe.h"
#include "amp/precision_mode.h"
#include "util/json_reader.h"

// The config's "precision": the modes, fp16's GradScaler, the block-scaled recipes' options and the layer
// filter of the float8 and float4 modes, and the fidelity verdict's tolerance and seeds; the defaults are the
// struct's (the GradScaler's in amp::GradScalerOptions, the recipes' in amp::BlockRecipeOptions).
namespace ampbench::config {

struct PrecisionConfig {
  std::vector<amp::PrecisionMode> modes = amp::default_precision_modes();
  amp::GradScalerOptions grad_scaler;
  // Fidelity passes when |val loss - fp32's| is at most this (in the loss's units, nats).
  double fidelity_tolerance = 0.05;
  // Seeds each mode is trained from for the fidelity verdict (initial weights and batch order change with
  // the seed, the same seeds for every mode); the first is the run's seed, whose trials are the timed ones.
  int64_t fidelity_seeds = 1;
  amp::BlockRecipeOptions block_recipe;  // "mxfp8": {"scale_rounding"}, "nvfp4": {"hadamard", ...}
  amp::LayerFilter layer_filter;         // "layer_filter": {"keep_first", "keep_last", "min_features"}
};

PrecisionConfig parse_precision(util::ObjectReader precision);
// "precision" as the resolved config writes it.
nlohmann::json precision_json(const PrecisionConfig& p);

// The mode a config names at `where` (a JSON pointer); util::InputError there for a name that is none.
amp::PrecisionMode mode_at(const std::string& name, const std::string& where);

}  // namespace ampbench::config
