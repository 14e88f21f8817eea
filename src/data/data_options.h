#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <variant>
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

// Each source's options, with their defaults (the only ones). Samples are sequences for tokens.

struct SyntheticOptions {
  int64_t train_samples = 2048;
  int64_t val_samples = 512;
  std::vector<int64_t> shape{3, 32, 32};  // one sample: [C, H, W] or [features]
  int64_t classes = 10;
  uint64_t seed = 0;  // the config's seed unless given
};

struct SyntheticTokensOptions {
  int64_t train_samples = 1024;
  int64_t val_samples = 256;
  int64_t context = 64;
  int64_t vocab = 256;
  int64_t branching = 4;  // likely successors of each token
  // 0: next-token targets (a language model). Otherwise one label per sequence: which of `classes` chains
  // made it (a sequence classifier's data).
  int64_t classes = 0;
  uint64_t seed = 0;  // the config's seed unless given
};

// MNIST or CIFAR-10: the files' format fixes the images' shape and the classes; `shape` and `classes` are
// the format's until the files are read, then what they hold.
struct ImageFilesOptions {
  DataSource format = DataSource::mnist;  // mnist or cifar10
  std::filesystem::path dir;
  int64_t train_samples = 0;  // 0: all the files hold; otherwise the first N
  int64_t val_samples = 0;
  std::vector<int64_t> shape{1, 28, 28};
  int64_t classes = 10;
};

struct TokenFilesOptions {
  std::filesystem::path dir;
  int64_t train_samples = 0;  // 0: all the files hold; otherwise the first N
  int64_t val_samples = 0;
  int64_t context = 1024;
  int64_t vocab = 50257;  // GPT-2's; uint16 ids allow up to 65536
};

// The data of an experiment: one source's options, and what every layer asks of them alike.
struct DataOptions {
  std::variant<SyntheticOptions, SyntheticTokensOptions, ImageFilesOptions, TokenFilesOptions> options;

  DataSource source() const;
  int64_t train_samples() const;
  int64_t val_samples() const;
  std::vector<int64_t> sample_shape() const;  // [C, H, W], [features], or [context] for tokens
  int64_t classes() const;                    // classes, or the vocabulary size for next-token data
  bool takes_tokens() const;                  // token ids, not features
  bool is_language_model() const;             // token ids with next-token targets
  bool sizes_known() const;                   // synthetic sources: made at the asked sizes
  // The bytes a synthetic data set holds once made (inputs and labels, both splits), 0 for file sources;
  // a double, since a config may ask for more than an int64_t counts.
  double synthetic_bytes() const;
  // After the files are read: the shape and classes they hold (image files only; the others are made or
  // read at their given sizes).
  void fit_to(const std::vector<int64_t>& shape, int64_t classes);
};

}  // namespace ampbench::data
