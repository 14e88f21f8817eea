#include "config/resolve.h"

#include "config/memory_estimate.h"
#include "data/load_dataset.h"
#include "measure/device.h"
#include "measure/gpu_info.h"
#include "measure/host_memory.h"
#include "util/json_reader.h"

namespace ampbench::config {

torch::Device resolve_device(const ExperimentConfig& config) {
  try {
    return measure::resolve_device(config.device);
  } catch (const util::InputError& e) {
    throw e.located("/device");
  }
}

namespace {

// Synthetic data is made in host memory: one that cannot fit is refused before LibTorch tries to
// allocate it (its error would name only a failed allocation). Making it needs more than it keeps, so
// this refuses only what can never fit.
void check_fits_host_memory(const data::DataOptions& data) {
  const double needed = data.synthetic_bytes();
  const auto available = measure::available_host_bytes();
  if (!available || needed <= double(*available)) return;
  throw util::InputError("/data/" + data::to_string(data.source()) + "/train_samples",
                         "the data set needs " + measure::human_bytes(needed) + " of host memory, and " +
                             measure::human_bytes(double(*available)) + " is available");
}

// A model or data set too large for this machine is refused before anything is made, with both figures:
// LibTorch's own error names only a failed allocation, and comes after the data was made.
void check_fits_memory(const ExperimentConfig& config, const torch::Device& device) {
  MemoryOnHand on_hand;
  if (const auto available = measure::available_host_bytes()) on_hand.host_available = double(*available);
  if (device.is_cuda()) {
    on_hand.gpu = device.str();
    if (const auto gpu = measure::gpu_details(device.index())) on_hand.gpu_total = double(gpu->memory_bytes);
  }
  if (const auto shortfall = memory_shortfall(estimate_memory(config), on_hand))
    throw util::InputError("/model", *shortfall);
}

// A file source's train_samples / val_samples take the first N: asking for more than the files hold
// would run on fewer while the report records N.
void check_sample_counts(const data::DataOptions& data, const data::Dataset& dataset) {
  if (data.sizes_known()) return;
  const auto where = "/data/" + data::to_string(data.source());
  const std::pair<const char*, std::pair<int64_t, int64_t>> counts[] = {
      {"train_samples", {data.train_samples(), dataset.train_size()}},
      {"val_samples", {data.val_samples(), dataset.val_size()}}};
  for (const auto& [key, asked_held] : counts) {
    const auto [asked, held] = asked_held;
    if (asked > held)
      throw util::InputError(where + "/" + key, "is " + std::to_string(asked) + ", but the files hold " +
                                                    std::to_string(held) + " samples");
  }
}

// Gives the config's data options the data's shape and classes, and resolves its model again for them.
void refit_to(ExperimentConfig& config, const data::Dataset& dataset) {
  config.data.fit_to(dataset.sample_shape, dataset.num_classes);
  const auto options = config.model.spec->options_json();
  util::ObjectReader reader(options, "/model/options");
  try {
    config.model.spec = models::find_model(config.model.type)->read(reader, input_spec(config.data));
  } catch (const util::InputError& e) {
    throw e.located("/data/" + data::to_string(config.data.source()));
  }
}

}  // namespace

data::Dataset load_data(const ExperimentConfig& config, const torch::Device& device) {
  check_fits_host_memory(config.data);
  // A file source's model is known once its files are read (fitted_to checks it then).
  if (config.data.sizes_known()) check_fits_memory(config, device);
  data::Dataset dataset;
  try {
    dataset = data::load_dataset(config.data, device);
  } catch (const util::InputError& e) {
    // Only file sources read anything that can be wrong: their folder is the key to name.
    throw e.located("/data/" + data::to_string(config.data.source()) + "/dir");
  }
  check_sample_counts(config.data, dataset);
  check_fits(config, dataset.train_size());
  return dataset;
}

ExperimentConfig fitted_to(ExperimentConfig config, const data::Dataset& dataset,
                           const torch::Device& device) {
  if (dataset.sample_shape != config.data.sample_shape() || dataset.num_classes != config.data.classes())
    refit_to(config, dataset);
  if (!config.data.sizes_known()) check_fits_memory(config, device);
  return config;
}

}  // namespace ampbench::config
