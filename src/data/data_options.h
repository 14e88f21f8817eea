#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace ampbench::data {

// Where an experiment's data comes from (the one key under "data" in a config).
enum class DataSource {
  synthetic,         // learnable images or feature vectors with teacher labels (no files)
  synthetic_tokens,  // token sequences from a fixed random Markov chain (no files)
  mnist,             // IDX files in a folder
  cifar10,           // CIFAR-10's binary batches in a folder
  tokens,            // train.bin / val.bin of uint16 token ids (as nanoGPT writes them)
};

std::string to_string(DataSource source);

struct DataOptions {
  DataSource source = DataSource::synthetic;
  // Samples (sequences for tokens). For file sources 0 means all the files hold; otherwise the first N.
  int64_t train_samples = 2048;
  int64_t val_samples = 512;
  std::vector<int64_t> shape{3, 32, 32};  // one sample: [C, H, W], [features], or [context] for tokens
  int64_t classes = 10;                   // classes, or the vocabulary size for tokens
  uint64_t seed = 0;                      // synthetic sources
  int64_t branching = 4;                  // synthetic_tokens: likely successors of each token
  std::filesystem::path dir;              // file sources

  bool is_language_model() const {
    return source == DataSource::synthetic_tokens || source == DataSource::tokens;
  }
  bool sizes_known() const {
    return source == DataSource::synthetic || source == DataSource::synthetic_tokens;
  }
  // The bytes a synthetic data set holds once made (inputs and labels, both splits), 0 for file sources;
  // a double, since a config may ask for more than an int64_t counts.
  double synthetic_bytes() const;
};

}  // namespace ampbench::data
