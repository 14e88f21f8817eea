#include "config/experiment_config.h"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <limits>
#include <map>
#include <optional>
#include <sstream>

#include "config/json_reader.h"
#include "measure/device.h"
#include "models/registry.h"

namespace ampbench::config {
namespace {

// Sample counts of a file source: limits, 0 (the default) meaning all the files hold.
void parse_limits(ObjectReader& source, data::DataOptions& out) {
  out.train_samples = source.integer("train_samples", 0, 0);
  out.val_samples = source.integer("val_samples", 0, 0);
}

// "data" holds exactly one source.
data::DataOptions parse_data(ObjectReader data, uint64_t seed) {
  using data::DataSource;
  const std::vector<std::pair<std::string, DataSource>> sources{
      {"synthetic", DataSource::synthetic},
      {"synthetic_tokens", DataSource::synthetic_tokens},
      {"mnist", DataSource::mnist},
      {"cifar10", DataSource::cifar10},
      {"tokens", DataSource::tokens}};
  std::string names;
  std::optional<std::pair<std::string, DataSource>> chosen;
  for (const auto& source : sources) {
    names += (names.empty() ? "" : ", ") + source.first;
    if (!data.has(source.first)) continue;
    if (chosen) {
      throw ConfigError(data.path_of(source.first),
                        "a second data source; /data holds exactly one (" + chosen->first + " is given)");
    }
    chosen = source;
  }
  if (!chosen) {
    data.finish();  // names an unknown key, with a did-you-mean
    throw ConfigError(data.path(), "expected exactly one data source: " + names);
  }
  ObjectReader source = data.required_object(chosen->first);
  data.finish();
  data::DataOptions out;
  out.source = chosen->second;
  switch (out.source) {
    case DataSource::synthetic:
      out.train_samples = source.integer("train_samples", out.train_samples, 1);
      out.val_samples = source.integer("val_samples", out.val_samples, 1);
      out.shape = source.integer_list("shape", out.shape, 1);
      if (out.shape.size() > 4) {
        throw ConfigError(source.path_of("shape"),
                          "expected 1 to 4 dimensions, got " + std::to_string(out.shape.size()));
      }
      out.classes = source.integer("classes", out.classes, 2);
      out.seed = static_cast<uint64_t>(source.integer("seed", static_cast<int64_t>(seed), 0));
      break;
    case DataSource::synthetic_tokens:
      out.train_samples = source.integer("train_samples", 1024, 1);
      out.val_samples = source.integer("val_samples", 256, 1);
      out.shape = {source.integer("context", 64, 1, 1 << 20)};
      out.classes = source.integer("vocab", 256, 2, 1 << 24);
      out.branching = source.integer("branching", out.branching, 1, 1 << 20);
      out.seed = static_cast<uint64_t>(source.integer("seed", static_cast<int64_t>(seed), 0));
      break;
    case DataSource::mnist:
    case DataSource::cifar10:
      out.dir = source.required_string("dir");
      out.dir_pointer = source.path_of("dir");
      parse_limits(source, out);
      out.shape =
          out.source == DataSource::mnist ? std::vector<int64_t>{1, 28, 28} : std::vector<int64_t>{3, 32, 32};
      out.classes = 10;
      break;
    case DataSource::tokens:
      out.dir = source.required_string("dir");
      out.dir_pointer = source.path_of("dir");
      parse_limits(source, out);
      out.shape = {source.integer("context", 1024, 1, 1 << 20)};
      out.classes = source.integer("vocab", 50257, 2, 65536);  // uint16 ids
      break;
  }
  source.finish();
  return out;
}

// The JSON pointer of what fixes the model's input, for the models' error messages.
std::string input_pointer(const data::DataOptions& d) {
  switch (d.source) {
    case data::DataSource::synthetic:
      return "/data/synthetic/shape";
    case data::DataSource::synthetic_tokens:
      return "/data/synthetic_tokens/context";
    case data::DataSource::tokens:
      return "/data/tokens/context";
    default:
      return "/data/" + data::to_string(d.source);
  }
}

nlohmann::json data_json(const data::DataOptions& d) {
  nlohmann::json source;
  switch (d.source) {
    case data::DataSource::synthetic:
      source = {{"train_samples", d.train_samples},
                {"val_samples", d.val_samples},
                {"shape", d.shape},
                {"classes", d.classes},
                {"seed", d.seed}};
      break;
    case data::DataSource::synthetic_tokens:
      source = {{"train_samples", d.train_samples}, {"val_samples", d.val_samples},
                {"context", d.shape.at(0)},         {"vocab", d.classes},
                {"branching", d.branching},         {"seed", d.seed}};
      break;
    case data::DataSource::mnist:
    case data::DataSource::cifar10:
      source = {{"dir", d.dir.string()}, {"train_samples", d.train_samples}, {"val_samples", d.val_samples}};
      break;
    case data::DataSource::tokens:
      source = {{"dir", d.dir.string()},
                {"train_samples", d.train_samples},
                {"val_samples", d.val_samples},
                {"context", d.shape.at(0)},
                {"vocab", d.classes}};
      break;
  }
  return {{data::to_string(d.source), source}};
}

OptimizerConfig parse_optimizer(ObjectReader optimizer) {
  OptimizerConfig out;
  std::string type = optimizer.string("type", "sgd");
  if (type == "sgd") {
    out.kind = OptimizerKind::sgd;
    out.lr = optimizer.number("lr", 0.05, 0.0, 1e6, /*exclusive_min=*/true);
    out.momentum = optimizer.number("momentum", 0.9, 0.0, 1.0);
    out.weight_decay = optimizer.number("weight_decay", 5e-4, 0.0, 1e6);
  } else if (type == "adamw") {
    out.kind = OptimizerKind::adamw;
    out.lr = optimizer.number("lr", 1e-3, 0.0, 1e6, true);
    out.weight_decay = optimizer.number("weight_decay", 1e-2, 0.0, 1e6);
    out.beta1 = optimizer.number("beta1", 0.9, 0.0, 1.0);
    out.beta2 = optimizer.number("beta2", 0.999, 0.0, 1.0);
    out.eps = optimizer.number("eps", 1e-8, 0.0, 1.0, true);
  } else {
    throw ConfigError(optimizer.path_of("type"), "expected \"sgd\" or \"adamw\", got \"" + type + "\"");
  }
  optimizer.finish();
  return out;
}

TrainConfig parse_train(ObjectReader train) {
  TrainConfig out;
  out.epochs = train.integer("epochs", out.epochs, 1, 1'000'000);
  out.batch_size = train.integer("batch_size", out.batch_size, 1, 1 << 24);
  out.optimizer = parse_optimizer(train.object("optimizer"));
  if (train.has("clip_grad_norm")) out.clip_grad_norm = train.number("clip_grad_norm", 0.0, 0.0, 1e12, true);
  out.accumulation_steps = train.integer("accumulation_steps", out.accumulation_steps, 1, 1 << 20);
  out.warmup_steps = train.integer("warmup_steps", out.warmup_steps, 0);
  out.cudnn_benchmark = train.boolean("cudnn_benchmark", out.cudnn_benchmark);
  out.channels_last = train.boolean("channels_last", out.channels_last);
  train.finish();
  return out;
}

PrecisionConfig parse_precision(ObjectReader precision) {
  PrecisionConfig out;
  if (precision.has("modes")) {
    auto names = precision.string_list("modes", {});
    if (names.empty()) {
      throw ConfigError(precision.path_of("modes"),
                        "expected at least one of " + amp::precision_mode_names());
    }
    out.modes.clear();
    for (size_t i = 0; i < names.size(); ++i) {
      std::string where = precision.path_of("modes") + "/" + std::to_string(i);
      auto mode = amp::parse_precision_mode(names[i]);
      if (!mode)
        throw ConfigError(
            where, "unknown mode \"" + names[i] + "\"; expected one of " + amp::precision_mode_names());
      if (std::find(out.modes.begin(), out.modes.end(), *mode) != out.modes.end()) {
        throw ConfigError(where, "mode \"" + names[i] + "\" is listed twice");
      }
      out.modes.push_back(*mode);
    }
  }
  ObjectReader scaler = precision.object("grad_scaler");
  auto& s = out.grad_scaler;
  s.init_scale = scaler.number("init_scale", s.init_scale, 0.0, 1e38, true);
  s.growth_factor = scaler.number("growth_factor", s.growth_factor, 1.0, 1e6, true);
  s.backoff_factor = scaler.number("backoff_factor", s.backoff_factor, 0.0, 1.0, true);
  if (s.backoff_factor >= 1.0) {
    throw ConfigError(scaler.path_of("backoff_factor"), "expected a number > 0 and < 1, got 1");
  }
  s.growth_interval =
      scaler.integer("growth_interval", s.growth_interval, 1, std::numeric_limits<int32_t>::max());
  scaler.finish();
  out.fidelity_tolerance = precision.number("fidelity_tolerance", out.fidelity_tolerance, 0.0, 1e6);
  precision.finish();
  return out;
}

// "gates": {"min_speedup": {"bf16": 1.2}, "max_val_loss_delta": {...}, "max_memory_ratio": {...}}
report::Gates parse_gates(ObjectReader gates, const std::vector<amp::PrecisionMode>& modes) {
  report::Gates out;
  auto read = [&](const char* key, std::map<amp::PrecisionMode, double>& thresholds, double min, double max) {
    ObjectReader per_mode = gates.object(key);
    for (const auto& name : per_mode.keys()) {
      auto mode = amp::parse_precision_mode(name);
      if (!mode) {
        throw ConfigError(per_mode.path_of(name),
                          "unknown mode \"" + name + "\"; expected one of " + amp::precision_mode_names());
      }
      if (std::find(modes.begin(), modes.end(), *mode) == modes.end()) {
        throw ConfigError(per_mode.path_of(name), "mode \"" + name + "\" is not in /precision/modes");
      }
      thresholds[*mode] = per_mode.number(name, 0.0, min, max);
    }
    per_mode.finish();
  };
  read("min_speedup", out.min_speedup, 0.0, 1e6);
  read("max_val_loss_delta", out.max_val_loss_delta, -1e6, 1e6);
  read("max_memory_ratio", out.max_memory_ratio, 0.0, 1e6);
  gates.finish();
  if (!out.empty() && std::find(modes.begin(), modes.end(), amp::PrecisionMode::fp32) == modes.end()) {
    throw ConfigError(gates.path(), "gates compare against fp32, which is not in /precision/modes");
  }
  return out;
}

// "peak_tflops": 989 (every mode) or {"bf16": 989, "fp32": 66.9}.
std::map<amp::PrecisionMode, double> parse_peak_tflops(ObjectReader& root,
                                                       const std::vector<amp::PrecisionMode>& modes) {
  std::map<amp::PrecisionMode, double> out;
  if (!root.has("peak_tflops")) return out;
  if (root.is_number("peak_tflops")) {
    const double peak = root.number("peak_tflops", 0.0, 0.0, 1e9, true);
    for (auto mode : modes) out[mode] = peak;
    return out;
  }
  if (!root.is_object("peak_tflops")) {
    throw ConfigError(
        root.path_of("peak_tflops"),
        "expected a number (TFLOP/s for every mode) or per-mode numbers such as {\"bf16\": 989}");
  }
  ObjectReader per_mode = root.object("peak_tflops");
  for (const auto& name : per_mode.keys()) {
    auto mode = amp::parse_precision_mode(name);
    if (!mode) {
      throw ConfigError(per_mode.path_of(name),
                        "unknown mode \"" + name + "\"; expected one of " + amp::precision_mode_names());
    }
    out[*mode] = per_mode.number(name, 0.0, 0.0, 1e9, true);
  }
  per_mode.finish();
  return out;
}

nlohmann::json gates_json(const report::Gates& gates) {
  nlohmann::json out = nlohmann::json::object();
  auto write = [&](const char* key, const std::map<amp::PrecisionMode, double>& thresholds) {
    if (thresholds.empty()) return;
    for (const auto& [mode, value] : thresholds) out[key][std::string(amp::to_string(mode))] = value;
  };
  write("min_speedup", gates.min_speedup);
  write("max_val_loss_delta", gates.max_val_loss_delta);
  write("max_memory_ratio", gates.max_memory_ratio);
  return out;
}

nlohmann::json peak_tflops_json(const std::map<amp::PrecisionMode, double>& peaks) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [mode, peak] : peaks) out[std::string(amp::to_string(mode))] = peak;
  return out;
}

std::string optimizer_name(OptimizerKind kind) { return kind == OptimizerKind::sgd ? "sgd" : "adamw"; }

}  // namespace

ExperimentConfig parse_experiment_config(const nlohmann::json& document) {
  ObjectReader root(document, "");
  ExperimentConfig config;
  config.name = root.required_string("name");
  // The run folder adds "-<UTC time>-N" (up to 20 bytes) and must fit a file name (255 bytes).
  if (config.name.size() > 200) {
    throw ConfigError("/name", "expected at most 200 bytes, got " + std::to_string(config.name.size()));
  }
  config.seed = static_cast<uint64_t>(root.integer("seed", 0, 0));
  config.repeats = root.integer("repeats", 1, 1, 1000);
  config.data = parse_data(root.required_object("data"), config.seed);
  config.train = parse_train(root.object("train"));
  config.precision = parse_precision(root.object("precision"));
  config.device = root.string("device", config.device);
  if (!measure::is_valid_device_spec(config.device)) {
    throw ConfigError(root.path_of("device"),
                      "expected auto, cpu, cuda or cuda:N, got \"" + config.device + "\"");
  }
  config.gates = parse_gates(root.object("gates"), config.precision.modes);
  config.peak_tflops = parse_peak_tflops(root, config.precision.modes);
  ObjectReader output = root.object("output");
  config.output_dir = output.string("dir", config.output_dir);
  output.finish();

  ObjectReader model = root.required_object("model");
  config.model.type = model.required_string("type");
  const auto* entry = models::find_model(config.model.type);
  if (!entry) {
    throw ConfigError(model.path_of("type"), "unknown model \"" + config.model.type + "\"; expected one of " +
                                                 models::model_names());
  }
  if (entry->language_model != config.data.is_language_model()) {
    throw ConfigError(
        model.path_of("type"),
        entry->language_model
            ? config.model.type + " is a language model: it needs token data (synthetic_tokens or tokens)"
            : config.model.type + " classifies images or vectors: token data needs a language model (gpt)");
  }
  ObjectReader options = model.object("options");
  models::InputSpec input{config.data.shape, config.data.classes, config.data.is_language_model()};
  config.model.options = entry->resolve_options(options, input, input_pointer(config.data));
  model.finish();
  root.finish();

  // Combinations that no single field shows.
  if (config.train.channels_last && (config.data.shape.size() != 3 || config.data.is_language_model())) {
    throw ConfigError("/train/channels_last", "needs image inputs ([C, H, W] samples)");
  }
  if (config.data.sizes_known()) check_fits(config, config.data.train_samples);
  return config;
}

void check_fits(const ExperimentConfig& config, int64_t train_samples) {
  if (config.train.batch_size > train_samples) {
    throw ConfigError("/train/batch_size", "is larger than the training set (" +
                                               std::to_string(train_samples) + " samples in /data/" +
                                               data::to_string(config.data.source) + ")");
  }
  const int64_t steps = train_samples / config.train.batch_size;
  if (config.train.warmup_steps >= steps) {
    throw ConfigError("/train/warmup_steps",
                      "must be smaller than the steps in an epoch (" + std::to_string(steps) + ")");
  }
  // Accumulation does not carry over an epoch's end: more batches than an epoch has would make one small
  // optimizer step per epoch, which no one means.
  if (config.train.accumulation_steps > steps) {
    throw ConfigError("/train/accumulation_steps",
                      "must be at most the steps in an epoch (" + std::to_string(steps) + ")");
  }
}

nlohmann::json read_config_file(const std::filesystem::path& path) {
  std::error_code error;
  if (std::filesystem::is_directory(path, error))
    throw ConfigError(path.string(), "is a directory, not a config file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ConfigError(path.string(), std::string("cannot open: ") + std::strerror(errno));
  std::ostringstream text;
  text << in.rdbuf();
  try {
    return parse_json_strictly(text.str());
  } catch (const nlohmann::json::exception& e) {
    // Syntax errors, but also numbers too large for a double (out_of_range: found by fuzzing).
    // nlohmann prefixes "[json.exception.parse_error.101] "; the rest names what and where.
    std::string message = e.what();
    // The parser quotes what it last read, which may be any bytes: keep the line printable.
    for (char& c : message) {
      if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f) c = '?';
    }
    auto bracket = message.find("] ");
    throw ConfigError(
        path.string(),
        "invalid JSON: " + (bracket == std::string::npos ? message : message.substr(bracket + 2)));
  }
}

nlohmann::json to_json(const ExperimentConfig& c) {
  nlohmann::json modes = nlohmann::json::array();
  for (auto mode : c.precision.modes) modes.push_back(std::string(amp::to_string(mode)));
  nlohmann::json optimizer{{"type", optimizer_name(c.train.optimizer.kind)},
                           {"lr", c.train.optimizer.lr},
                           {"weight_decay", c.train.optimizer.weight_decay}};
  if (c.train.optimizer.kind == OptimizerKind::sgd) {
    optimizer["momentum"] = c.train.optimizer.momentum;
  } else {
    optimizer["beta1"] = c.train.optimizer.beta1;
    optimizer["beta2"] = c.train.optimizer.beta2;
    optimizer["eps"] = c.train.optimizer.eps;
  }
  nlohmann::json train{{"epochs", c.train.epochs},
                       {"batch_size", c.train.batch_size},
                       {"optimizer", optimizer},
                       {"accumulation_steps", c.train.accumulation_steps},
                       {"warmup_steps", c.train.warmup_steps},
                       {"cudnn_benchmark", c.train.cudnn_benchmark},
                       {"channels_last", c.train.channels_last}};
  if (c.train.clip_grad_norm) train["clip_grad_norm"] = *c.train.clip_grad_norm;
  const auto& s = c.precision.grad_scaler;
  return {
      {"name", c.name},
      {"seed", c.seed},
      {"repeats", c.repeats},
      {"model", {{"type", c.model.type}, {"options", c.model.options}}},
      {"data", data_json(c.data)},
      {"train", train},
      {"precision",
       {{"modes", modes},
        {"grad_scaler",
         {{"init_scale", s.init_scale},
          {"growth_factor", s.growth_factor},
          {"backoff_factor", s.backoff_factor},
          {"growth_interval", s.growth_interval}}},
        {"fidelity_tolerance", c.precision.fidelity_tolerance}}},
      {"device", c.device},
      {"output", {{"dir", c.output_dir}}},
      {"gates", gates_json(c.gates)},
      {"peak_tflops", peak_tflops_json(c.peak_tflops)},
  };
}

}  // namespace ampbench::config
