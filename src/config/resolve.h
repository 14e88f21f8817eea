#pragma once

#include <torch/torch.h>

#include "config/experiment_config.h"
#include "data/dataset.h"

namespace ampbench::config {

// What a config names, made real on this machine. Errors are util::InputError located at the config's
// JSON pointer, as parsing locates them.

// The device /device names (auto picks CUDA when there is a GPU); an error when it is not here.
torch::Device resolve_device(const ExperimentConfig& config);

// The configured data, made or read and staged on the device (see data::load_dataset); a data file that
// is missing or malformed, data too small for the batch size, or synthetic data larger than the host's
// available memory is an error naming its config key. With synthetic data, so is a run whose model and
// data together cannot fit this machine's memory (see estimate_memory): at /model, before anything is made.
data::Dataset load_data(const ExperimentConfig& config, const torch::Device& device);

// The config with the samples' shape and the classes taken from the data as read, and its model resolved
// again for them: a file source may hold other sizes than its format's usual ones (an IDX file of 6x6
// images). A model that does not fit the data as read is an error at the data source's key; with a file
// source, a model too large for this machine's memory is one at /model.
ExperimentConfig fitted_to(ExperimentConfig config, const data::Dataset& dataset,
                           const torch::Device& device);

}  // namespace ampbench::config
