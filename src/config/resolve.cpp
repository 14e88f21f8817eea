#include "config/resolve.h"

#include "data/load_dataset.h"
#include "measure/device.h"
#include "util/json_reader.h"

namespace ampbench::config {

torch::Device resolve_device(const ExperimentConfig& config) {
  try {
    return measure::resolve_device(config.device);
  } catch (const util::InputError& e) {
    throw e.located("/device");
  }
}

data::Dataset load_data(const ExperimentConfig& config, const torch::Device& device) {
  data::Dataset dataset;
  try {
    dataset = data::load_dataset(config.data, device);
  } catch (const util::InputError& e) {
    // Only file sources read anything that can be wrong: their folder is the key to name.
    throw e.located("/data/" + data::to_string(config.data.source) + "/dir");
  }
  check_fits(config, dataset.train_size());
  return dataset;
}

ExperimentConfig fitted_to(ExperimentConfig config, const data::Dataset& dataset) {
  if (dataset.sample_shape == config.data.shape && dataset.num_classes == config.data.classes) return config;
  config.data.shape = dataset.sample_shape;
  config.data.classes = dataset.num_classes;
  const auto options = config.model.spec->options_json();
  util::ObjectReader reader(options, "/model/options");
  try {
    config.model.spec =
        models::find_model(config.model.type)
            ->read(reader, {config.data.shape, config.data.classes, config.data.is_language_model()});
  } catch (const util::InputError& e) {
    throw e.located("/data/" + data::to_string(config.data.source));
  }
  return config;
}

}  // namespace ampbench::config
