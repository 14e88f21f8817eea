#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/input_spec.h"
#include "util/json_reader.h"

namespace ampbench::models {

class Network;  // models/network.h: what a spec builds

// The elements of a model's state: parameters (trained, so with gradients and optimizer state) and
// buffers (BatchNorm's running statistics, rotary tables). Doubles: counted before anything is made, for
// options that may ask for more than can ever be allocated.
struct ModelSize {
  double parameters = 0;
  double buffers = 0;
};

// Where an exported model's program came from: what every report names it by.
struct ArchiveIdentity {
  std::string fingerprint;    // FNV-1a over the program and its weights, hex
  std::string torch_version;  // that exported it
};

// What a model that fixes its own input (an exported program) takes: a sample's dimensions (nullopt where
// it takes any size), the classes or vocabulary of its logits (nullopt: any), whether it takes token ids,
// and whether it predicts every position's next token (a language model) or classifies each sample. The
// config sizes the data to it where the config leaves a size out.
struct InputFit {
  std::vector<std::optional<int64_t>> sample_shape;
  std::optional<int64_t> classes;
  bool tokens = false;
  bool next_token = false;
};

// What one sample's training step costs in matrix FLOPs (2 per multiply-add: what FLOP/s and MFU are
// computed from), and the ops left out of it because their FLOPs could not be counted. A double: options
// within their ranges can ask for more than int64 counts (attention over 2^32 patches).
struct TrainFlops {
  double per_sample = 0;
  std::vector<std::string> uncounted;
};

// A model with every option resolved: what a config's "model" names, typed. Built from it, its weights
// are drawn from LibTorch's global RNG.
class ModelSpec {
 public:
  virtual ~ModelSpec() = default;
  virtual std::shared_ptr<Network> build() const = 0;
  // The matrix FLOPs of one sample's training step on `input` (the run's data).
  virtual TrainFlops train_flops(const InputSpec& input) const = 0;
  // Its state's elements, counted from the options alone (what estimates memory before it is built).
  virtual ModelSize size() const = 0;
  // The options as a config writes them, every default filled in (the input's shape is the data's).
  virtual nlohmann::json options_json() const = 0;
  // The archive an exported model was read from; nullopt for a reference model.
  virtual std::optional<ArchiveIdentity> archive() const { return std::nullopt; }
  // A model that fixes its own input: what it takes, and whether the data's input fits it (util::InputError,
  // unlocated, when not). A reference model takes the data's shape: nullopt, and every input fits.
  virtual std::optional<InputFit> input_fit() const { return std::nullopt; }
  virtual void check_input(const InputSpec& /*input*/) const {}
};

// A model's options struct with what it was resolved for. Each model provides, for its Options type,
// build_network(options), forward_macs_of(options, input), model_size_of(options) and
// options_json_of(options), found by
// argument-dependent lookup.
template <typename Options>
class ModelSpecOf final : public ModelSpec {
 public:
  ModelSpecOf(Options options, InputSpec input) : options_(std::move(options)), input_(std::move(input)) {}
  const Options& options() const { return options_; }
  std::shared_ptr<Network> build() const override { return build_network(options_); }
  // Counted analytically from the options: every convolution, linear layer and attention matmul of the
  // forward pass, and training as 3x it (each product's two gradients).
  TrainFlops train_flops(const InputSpec& /*input*/) const override {
    return {6.0 * forward_macs_of(options_, input_), {}};
  }
  ModelSize size() const override { return model_size_of(options_); }
  nlohmann::json options_json() const override { return options_json_of(options_); }

 private:
  Options options_;
  InputSpec input_;
};

// One reference model: its name, and how to read its options from a config.
struct ModelEntry {
  std::string name;
  std::string description;
  // Reads model.options strictly (util::InputError with the JSON path on any problem, and without one
  // when the model does not fit the input: the caller knows where the input was configured).
  std::function<std::shared_ptr<const ModelSpec>(util::ObjectReader& options, const InputSpec& input)> read;
  bool language_model = false;  // takes token sequences (and predicts the next token), not features
  // A model that fixes its own task and input (an exported one) is read before the data, which is then
  // sized to its spec's input_fit() and checked by check_input(); `read` is the two steps in one. Unset
  // for a reference model, whose task is `language_model`.
  std::function<std::shared_ptr<const ModelSpec>(util::ObjectReader& options)> open;
};

const std::vector<ModelEntry>& model_registry();
// nullptr when no model has that name.
const ModelEntry* find_model(const std::string& name);
std::string model_names();

}  // namespace ampbench::models
