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

}  // namespace ampbench::data
