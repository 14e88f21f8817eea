#include "data/data_options.h"

namespace ampbench::data {

std::string to_string(DataSource source) {
  switch (source) {
    case DataSource::synthetic:
      return "synthetic";
    case DataSource::synthetic_tokens:
      return "synthetic_tokens";
    case DataSource::mnist:
      return "mnist";
    case DataSource::cifar10:
      return "cifar10";
    case DataSource::tokens:
      return "tokens";
  }
  return "unknown";
}

double DataOptions::synthetic_bytes() const {
  double values = 1;  // per sample: features, or positions for tokens
  for (auto d : shape) values *= double(d);
  // fp32 features and an int64 label; or int64 inputs and targets at every position.
  const double per_sample = source == DataSource::synthetic ? 4.0 * values + 8.0 : 16.0 * values;
  return sizes_known() ? per_sample * (double(train_samples) + double(val_samples)) : 0.0;
}

}  // namespace ampbench::data
