#pragma once

#include <torch/torch.h>

#include "data/data_options.h"
#include "data/dataset.h"

namespace ampbench::data {

// Makes or reads the configured data set, keeps the first train_samples / val_samples when they are
// limits, and stages it on the device once, before any timing; a data set that does not fit there stays
// in host memory (Dataset::staged). File problems throw util::InputError naming the file;
// the caller adds where in the config it was named (exit 2).
Dataset load_dataset(const DataOptions& options, const torch::Device& device);

}  // namespace ampbench::data
