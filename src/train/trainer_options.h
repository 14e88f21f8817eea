#pragma once

#include <cstdint>

#include "amp/grad_scaler.h"
#include "config/experiment_config.h"

namespace ampbench::train {

// What training one model needs from an experiment's config, and nothing else.
struct TrainerOptions {
  config::TrainConfig train;
  amp::GradScalerOptions grad_scaler;    // fp16's
  uint64_t seed = 0;                     // fixes each epoch's batch order
  bool language_model = false;           // reports perplexity
  amp::BlockRecipeOptions block_recipe;  // the block-scaled modes' options
  amp::LayerFilter layer_filter;         // the float8 and float4 modes' layers kept in bf16

  static TrainerOptions from(const config::ExperimentConfig& config) {
    return {config.train,
            config.precision.grad_scaler,
            config.seed,
            config.data.is_language_model(),
            config.precision.block_recipe,
            config.precision.layer_filter};
  }
  at::MemoryFormat memory_format() const {
    return train.channels_last ? at::MemoryFormat::ChannelsLast : at::MemoryFormat::Contiguous;
  }
};

}  // namespace ampbench::train
