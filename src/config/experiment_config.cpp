#include "config/experiment_config.h"

#include "measure/device.h"
#include "util/bounded_file.h"
#include "util/json_reader.h"

namespace ampbench::config {
namespace {

using util::InputError;
using util::ObjectReader;

std::string parse_name(ObjectReader& root) {
  auto name = root.required_string("name");
  // The run folder adds "-<UTC time>-N" (up to 20 bytes) and must fit a file name (255 bytes).
  if (name.size() > 200) {
    throw InputError("/name", "expected at most 200 bytes, got " + std::to_string(name.size()));
  }
  return name;
}

std::string parse_device(ObjectReader& root, const std::string& fallback) {
  auto device = root.string("device", fallback);
  if (!measure::is_valid_device_spec(device)) {
    throw InputError(root.path_of("device"), "expected auto, cpu, cuda or cuda:N, got \"" + device + "\"");
  }
  return device;
}

// Combinations that no single field shows.
void check_combinations(const ExperimentConfig& config) {
  if (config.gates.contains(Gate::min_low_precision_flop_share) && !config.profile.enabled()) {
    throw InputError("/gates/min_low_precision_flop_share",
                     "needs the profiled pass (\"profile\" or --profile)");
  }
  if (config.train.channels_last &&
      (config.data.sample_shape().size() != 3 || config.data.is_language_model())) {
    throw InputError("/train/channels_last", "needs image inputs ([C, H, W] samples)");
  }
  if (config.data.sizes_known()) check_fits(config, config.data.train_samples());
}

// Keys added after configs were first hashed (environment.config_hash, which compare checks) are written
// only when they are not at their default, so that a config without them keeps its hash: the one list of
// them, each with the value that leaves it out.
void leave_out_defaults(nlohmann::json& config) {
  static const std::vector<std::pair<nlohmann::json::json_pointer, nlohmann::json>> kLeftOutAt{
      {nlohmann::json::json_pointer("/train/threads"), nullptr},       // LibTorch's default
      {nlohmann::json::json_pointer("/precision/fidelity_seeds"), 1},  // the run's own seed only
      {nlohmann::json::json_pointer("/precision/mxfp8"),
       {{"scale_rounding", "rceil"}}},                    // torchao's training
      {nlohmann::json::json_pointer("/precision/nvfp4"),  // the whole training recipe
       {{"hadamard", true}, {"weight_tiles_2d", true}, {"stochastic_rounding", true}}},
      {nlohmann::json::json_pointer("/precision/layer_filter"),  // no layer kept in bf16 but by its shape
       {{"keep_first", 0}, {"keep_last", 0}, {"min_features", 0}}},
      {nlohmann::json::json_pointer("/profile"), nullptr},                  // no profiled pass
      {nlohmann::json::json_pointer("/numerics"), nullptr},                 // no numerics pass
      {nlohmann::json::json_pointer("/data/synthetic_tokens/classes"), 0},  // next-token targets
  };
  for (const auto& [key, left_out_at] : kLeftOutAt) {
    if (config.contains(key) && config.at(key) == left_out_at)
      config.at(key.parent_pointer()).erase(key.back());
  }
}

}  // namespace

ExperimentConfig parse_experiment_config(const nlohmann::json& document) {
  ObjectReader root(document, "");
  ExperimentConfig config;
  config.name = parse_name(root);
  config.seed = static_cast<uint64_t>(root.integer("seed", config.seed, 0));
  config.repeats = root.integer("repeats", config.repeats, 1, 1000);
  parse_model_and_data(root, config.seed, config.model, config.data);
  config.train = parse_train(root.object("train"));
  config.precision = parse_precision(root.object("precision"));
  config.device = parse_device(root, config.device);
  config.profile = parse_profile(root);
  config.numerics = parse_numerics(root);
  config.gates = parse_gates(root.object("gates"), config.precision.modes, config.device);
  config.peak_tflops = parse_peak_tflops(root, config.precision.modes);
  config.output_dir = parse_output_dir(root, config.output_dir);
  root.finish();
  check_combinations(config);
  return config;
}

void check_fits(const ExperimentConfig& config, int64_t train_samples) {
  if (config.train.batch_size > train_samples) {
    throw InputError("/train/batch_size", "is larger than the training set (" +
                                              std::to_string(train_samples) + " samples in /data/" +
                                              data::to_string(config.data.source()) + ")");
  }
  const int64_t steps = train_samples / config.train.batch_size;
  if (config.train.warmup_steps >= steps) {
    throw InputError("/train/warmup_steps",
                     "must be smaller than the steps in an epoch (" + std::to_string(steps) + ")");
  }
  // Accumulation does not carry over an epoch's end: more batches than an epoch has would make one small
  // optimizer step per epoch, which no one means.
  if (config.train.accumulation_steps > steps) {
    throw InputError("/train/accumulation_steps",
                     "must be at most the steps in an epoch (" + std::to_string(steps) + ")");
  }
}

nlohmann::json read_config_file(const std::filesystem::path& path) {
  const auto text = util::read_bounded_file(path, util::kMaxConfigBytes, "config");
  // Syntax errors, but also numbers too large for a double (out_of_range: found by fuzzing).
  return util::parse_json_file(text, path.string());
}

nlohmann::json to_json(const ExperimentConfig& c) {
  nlohmann::json out = {
      {"name", c.name},
      {"seed", c.seed},
      {"repeats", c.repeats},
      {"model", model_json(c.model)},
      {"data", data_json(c.data)},
      {"train", train_json(c.train)},
      {"precision", precision_json(c.precision)},
      {"device", c.device},
      {"output", {{"dir", c.output_dir}}},
      {"gates", gates_json(c.gates)},
      {"peak_tflops", peak_tflops_json(c.peak_tflops)},
      {"profile", profile_json(c.profile)},
      {"numerics", numerics_json(c.numerics)},
  };
  leave_out_defaults(out);
  return out;
}

}  // namespace ampbench::config
