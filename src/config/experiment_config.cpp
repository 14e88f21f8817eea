#include "config/experiment_config.h"

#include <algorithm>
#include <limits>
#include <map>
#include <optional>

#include "measure/device.h"
#include "models/registry.h"
#include "util/bounded_file.h"
#include "util/enum_names.h"
#include "util/json_reader.h"

namespace ampbench::config {
namespace {

using util::InputError;
using util::ObjectReader;

// The mode a config names at `where`.
amp::PrecisionMode mode_at(const std::string& name, const std::string& where) {
  try {
    return amp::precision_mode_named(name);
  } catch (const InputError& e) {
    throw e.located(where);
  }
}

// Sample counts of a file source: limits, 0 (the default) meaning all the files hold.
template <typename FileOptions>
void parse_limits(ObjectReader& source, FileOptions& out) {
  out.train_samples = source.integer("train_samples", out.train_samples, 0);
  out.val_samples = source.integer("val_samples", out.val_samples, 0);
}

uint64_t parse_seed(ObjectReader& source, uint64_t seed) {
  return static_cast<uint64_t>(source.integer("seed", static_cast<int64_t>(seed), 0));
}

// The sizes a model that fixes its own input (an exported program) gives the data source's keys the config
// leaves out; empty for a reference model, which takes the data's shape.
struct Fitted {
  std::optional<std::vector<int64_t>> shape;  // features, every dimension fixed
  std::optional<int64_t> context;             // token ids, the window fixed
  std::optional<int64_t> classes;             // a classifier's, of features or of token sequences
  std::optional<int64_t> vocab;               // a language model's
};

Fitted fitted_to(const std::optional<models::InputFit>& fit) {
  Fitted out;
  if (!fit) return out;
  // Fewer than two classes are no classifier: left to the data's default, which the check then refuses.
  const auto classes = fit->classes && *fit->classes >= 2 ? fit->classes : std::nullopt;
  (fit->next_token ? out.vocab : out.classes) = classes;
  if (fit->tokens) {
    if (fit->sample_shape.size() == 1) out.context = fit->sample_shape[0];
    return out;
  }
  std::vector<int64_t> shape;
  for (const auto& size : fit->sample_shape) {
    if (!size) return out;
    shape.push_back(*size);
  }
  out.shape = shape;
  return out;
}

data::SyntheticOptions parse_synthetic(ObjectReader& source, uint64_t seed, const Fitted& fitted) {
  data::SyntheticOptions out;
  out.train_samples = source.integer("train_samples", out.train_samples, 1);
  out.val_samples = source.integer("val_samples", out.val_samples, 1);
  out.shape = source.integer_list("shape", fitted.shape.value_or(out.shape), 1);
  if (out.shape.size() > 4) {
    throw InputError(source.path_of("shape"),
                     "expected 1 to 4 dimensions, got " + std::to_string(out.shape.size()));
  }
  out.classes = source.integer("classes", fitted.classes.value_or(out.classes), 2);
  out.seed = parse_seed(source, seed);
  return out;
}

data::SyntheticTokensOptions parse_synthetic_tokens(ObjectReader& source, uint64_t seed,
                                                    const Fitted& fitted) {
  data::SyntheticTokensOptions out;
  out.train_samples = source.integer("train_samples", out.train_samples, 1);
  out.val_samples = source.integer("val_samples", out.val_samples, 1);
  out.context = source.integer("context", fitted.context.value_or(out.context), 1, 1 << 20);
  out.vocab = source.integer("vocab", fitted.vocab.value_or(out.vocab), 2, 1 << 24);
  // Each token's likely successors are tokens of the vocabulary: more of them than it has is no chain.
  out.branching = source.integer("branching", out.branching, 1, out.vocab);
  out.classes = source.integer("classes", fitted.classes.value_or(out.classes), 0, 1 << 16);
  if (out.classes == 1)
    throw InputError(source.path_of("classes"), "expected 0 (next-token targets) or at least 2 classes");
  out.seed = parse_seed(source, seed);
  return out;
}

// MNIST and CIFAR-10: a folder of files whose format fixes the images' shape and the classes.
data::ImageFilesOptions parse_image_files(ObjectReader& source, data::DataSource format) {
  data::ImageFilesOptions out;
  out.format = format;
  out.dir = source.required_string("dir");
  parse_limits(source, out);
  if (format == data::DataSource::cifar10) out.shape = {3, 32, 32};
  return out;
}

data::TokenFilesOptions parse_token_files(ObjectReader& source, const Fitted& fitted) {
  data::TokenFilesOptions out;
  out.dir = source.required_string("dir");
  parse_limits(source, out);
  out.context = source.integer("context", fitted.context.value_or(out.context), 1, 1 << 20);
  out.vocab = source.integer("vocab", fitted.vocab.value_or(out.vocab), 2, 65536);  // uint16 ids
  return out;
}

const std::vector<std::pair<std::string, data::DataSource>>& data_sources() {
  using data::DataSource;
  static const std::vector<std::pair<std::string, DataSource>> sources{
      {"synthetic", DataSource::synthetic},
      {"synthetic_tokens", DataSource::synthetic_tokens},
      {"mnist", DataSource::mnist},
      {"cifar10", DataSource::cifar10},
      {"tokens", DataSource::tokens}};
  return sources;
}

// The one source key under "data": an unknown key or a second source is an error.
std::pair<std::string, data::DataSource> chosen_source(ObjectReader& data) {
  std::string names;
  std::optional<std::pair<std::string, data::DataSource>> chosen;
  for (const auto& source : data_sources()) {
    names += (names.empty() ? "" : ", ") + source.first;
    if (!data.has(source.first)) continue;
    if (chosen) {
      throw InputError(data.path_of(source.first),
                       "a second data source; /data holds exactly one (" + chosen->first + " is given)");
    }
    chosen = source;
  }
  if (!chosen) {
    data.finish();  // names an unknown key, with a did-you-mean
    throw InputError(data.path(), "expected exactly one data source: " + names);
  }
  return *chosen;
}

// "data" holds exactly one source.
data::DataOptions parse_data(ObjectReader data, uint64_t seed, const Fitted& fitted) {
  const auto [name, kind] = chosen_source(data);
  ObjectReader source = data.required_object(name);
  data.finish();
  data::DataOptions out;
  switch (kind) {
    case data::DataSource::synthetic:
      out.options = parse_synthetic(source, seed, fitted);
      break;
    case data::DataSource::synthetic_tokens:
      out.options = parse_synthetic_tokens(source, seed, fitted);
      break;
    case data::DataSource::mnist:
    case data::DataSource::cifar10:
      out.options = parse_image_files(source, kind);
      break;
    case data::DataSource::tokens:
      out.options = parse_token_files(source, fitted);
      break;
  }
  source.finish();
  return out;
}

// No "data" for a model that fixes its own input: synthetic data of its shape (samples, seed: defaults).
data::DataOptions synthetic_data_for(const models::InputFit& fit, uint64_t seed) {
  const nlohmann::json none = nlohmann::json::object();
  ObjectReader source(none, "/data");
  const auto fitted = fitted_to(fit);
  if (fit.tokens) return {parse_synthetic_tokens(source, seed, fitted)};
  if (!fitted.shape)
    throw InputError("/data",
                     "is missing, and the model takes inputs with a dimension of any size: name a "
                     "data source that sets it");
  return {parse_synthetic(source, seed, fitted)};
}

// The JSON pointer of what fixes the model's input, for the models' error messages.
std::string input_pointer(const data::DataOptions& d) {
  switch (d.source()) {
    case data::DataSource::synthetic:
      return "/data/synthetic/shape";
    case data::DataSource::synthetic_tokens:
      return "/data/synthetic_tokens/context";
    case data::DataSource::tokens:
      return "/data/tokens/context";
    default:
      return "/data/" + data::to_string(d.source());
  }
}

nlohmann::json source_json(const data::SyntheticOptions& o) {
  return {{"train_samples", o.train_samples},
          {"val_samples", o.val_samples},
          {"shape", o.shape},
          {"classes", o.classes},
          {"seed", o.seed}};
}

nlohmann::json source_json(const data::SyntheticTokensOptions& o) {
  return {{"train_samples", o.train_samples},
          {"val_samples", o.val_samples},
          {"context", o.context},
          {"vocab", o.vocab},
          {"branching", o.branching},
          {"classes", o.classes},
          {"seed", o.seed}};
}

nlohmann::json source_json(const data::ImageFilesOptions& o) {
  return {{"dir", o.dir.string()}, {"train_samples", o.train_samples}, {"val_samples", o.val_samples}};
}

nlohmann::json source_json(const data::TokenFilesOptions& o) {
  return {{"dir", o.dir.string()},
          {"train_samples", o.train_samples},
          {"val_samples", o.val_samples},
          {"context", o.context},
          {"vocab", o.vocab}};
}

nlohmann::json data_json(const data::DataOptions& d) {
  return {{data::to_string(d.source()), std::visit([](const auto& o) { return source_json(o); }, d.options)}};
}

optim::SgdOptions parse_sgd(ObjectReader& optimizer) {
  optim::SgdOptions out;
  out.lr(optimizer.number("lr", out.lr(), 0.0, 1e6, /*exclusive_min=*/true));
  out.momentum(optimizer.number("momentum", out.momentum(), 0.0, 1.0));
  out.weight_decay(optimizer.number("weight_decay", out.weight_decay(), 0.0, 1e6));
  return out;
}

optim::AdamWOptions parse_adamw(ObjectReader& optimizer) {
  optim::AdamWOptions out;
  out.lr(optimizer.number("lr", out.lr(), 0.0, 1e6, /*exclusive_min=*/true));
  out.weight_decay(optimizer.number("weight_decay", out.weight_decay(), 0.0, 1e6));
  out.beta1(optimizer.number("beta1", out.beta1(), 0.0, 1.0));
  out.beta2(optimizer.number("beta2", out.beta2(), 0.0, 1.0));
  out.eps(optimizer.number("eps", out.eps(), 0.0, 1.0, /*exclusive_min=*/true));
  return out;
}

optim::OptimizerOptions parse_optimizer(ObjectReader optimizer) {
  const std::string type = optimizer.string("type", "sgd");
  optim::OptimizerOptions out;
  if (type == "sgd") {
    out = parse_sgd(optimizer);
  } else if (type == "adamw") {
    out = parse_adamw(optimizer);
  } else {
    throw InputError(optimizer.path_of("type"), "expected \"sgd\" or \"adamw\", got \"" + type + "\"");
  }
  optimizer.finish();
  return out;
}

nlohmann::json optimizer_json(const optim::OptimizerOptions& options) {
  if (const auto* adamw = std::get_if<optim::AdamWOptions>(&options)) {
    return {{"type", "adamw"},         {"lr", adamw->lr()},       {"weight_decay", adamw->weight_decay()},
            {"beta1", adamw->beta1()}, {"beta2", adamw->beta2()}, {"eps", adamw->eps()}};
  }
  const auto& sgd = std::get<optim::SgdOptions>(options);
  return {
      {"type", "sgd"}, {"lr", sgd.lr()}, {"weight_decay", sgd.weight_decay()}, {"momentum", sgd.momentum()}};
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
  if (train.has("threads")) out.threads = train.integer("threads", 1, 1, 4096);
  train.finish();
  return out;
}

PrecisionConfig parse_precision(ObjectReader precision) {
  PrecisionConfig out;
  if (precision.has("modes")) {
    auto names = precision.string_list("modes", {});
    if (names.empty()) {
      throw InputError(precision.path_of("modes"), "expected at least one of " + amp::precision_mode_names());
    }
    out.modes.clear();
    for (size_t i = 0; i < names.size(); ++i) {
      std::string where = precision.path_of("modes") + "/" + std::to_string(i);
      const auto mode = mode_at(names[i], where);
      if (std::find(out.modes.begin(), out.modes.end(), mode) != out.modes.end()) {
        throw InputError(where, "mode \"" + names[i] + "\" is listed twice");
      }
      out.modes.push_back(mode);
    }
  }
  ObjectReader scaler = precision.object("grad_scaler");
  auto& s = out.grad_scaler;
  s.init_scale = scaler.number("init_scale", s.init_scale, 0.0, 1e38, true);
  s.growth_factor = scaler.number("growth_factor", s.growth_factor, 1.0, 1e6, true);
  s.backoff_factor = scaler.number("backoff_factor", s.backoff_factor, 0.0, 1.0, true);
  if (s.backoff_factor >= 1.0) {
    throw InputError(scaler.path_of("backoff_factor"), "expected a number > 0 and < 1, got 1");
  }
  s.growth_interval =
      scaler.integer("growth_interval", s.growth_interval, 1, std::numeric_limits<int32_t>::max());
  scaler.finish();
  out.fidelity_tolerance = precision.number("fidelity_tolerance", out.fidelity_tolerance, 0.0, 1e6);
  out.fidelity_seeds = precision.integer("fidelity_seeds", out.fidelity_seeds, 1, 1000);
  precision.finish();
  return out;
}

// "profile": {"steps": 10, "warmup_steps": 3}; present, even empty, turns the profiled pass on.
ProfileConfig parse_profile(ObjectReader& root) {
  ProfileConfig out;
  if (!root.has("profile")) return out;
  ObjectReader profile = root.object("profile");
  out.steps = profile.integer("steps", ProfileConfig::kDefaultSteps, 1, 100'000);
  out.warmup_steps = profile.integer("warmup_steps", out.warmup_steps, 0, 100'000);
  profile.finish();
  return out;
}

// The thresholds of one gate: {"bf16": 1.2, ...}, each mode one that runs.
std::map<amp::PrecisionMode, double> parse_thresholds(ObjectReader per_mode,
                                                      const std::vector<amp::PrecisionMode>& modes,
                                                      double min, double max) {
  std::map<amp::PrecisionMode, double> thresholds;
  for (const auto& name : per_mode.keys()) {
    const auto mode = mode_at(name, per_mode.path_of(name));
    if (std::find(modes.begin(), modes.end(), mode) == modes.end()) {
      throw InputError(per_mode.path_of(name), "mode \"" + name + "\" is not in /precision/modes");
    }
    thresholds[mode] = per_mode.number(name, 0.0, min, max);
  }
  per_mode.finish();
  return thresholds;
}

// "gates": {"min_speedup": {"bf16": 1.2}, "max_val_loss_delta": {...}, "max_memory_ratio": {...}}
Gates parse_gates(ObjectReader gates, const std::vector<amp::PrecisionMode>& modes) {
  struct Range {
    Gate gate;
    double min, max;
  };
  Gates out;
  for (const auto& [gate, min, max] :
       {Range{Gate::min_speedup, 0.0, 1e6}, Range{Gate::max_val_loss_delta, -1e6, 1e6},
        Range{Gate::max_memory_ratio, 0.0, 1e6}, Range{Gate::min_low_precision_flop_share, 0.0, 1.0}}) {
    auto thresholds = parse_thresholds(gates.object(std::string(to_string(gate))), modes, min, max);
    if (!thresholds.empty()) out[gate] = std::move(thresholds);
  }
  gates.finish();
  if (!out.empty() && std::find(modes.begin(), modes.end(), amp::PrecisionMode::fp32) == modes.end()) {
    throw InputError(gates.path(), "gates compare against fp32, which is not in /precision/modes");
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
    throw InputError(
        root.path_of("peak_tflops"),
        "expected a number (TFLOP/s for every mode) or per-mode numbers such as {\"bf16\": 989}");
  }
  ObjectReader per_mode = root.object("peak_tflops");
  for (const auto& name : per_mode.keys()) {
    out[mode_at(name, per_mode.path_of(name))] = per_mode.number(name, 0.0, 0.0, 1e9, true);
  }
  per_mode.finish();
  return out;
}

nlohmann::json gates_json(const Gates& gates) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [gate, thresholds] : gates) {
    for (const auto& [mode, value] : thresholds)
      out[std::string(to_string(gate))][std::string(amp::to_string(mode))] = value;
  }
  return out;
}

nlohmann::json peak_tflops_json(const std::map<amp::PrecisionMode, double>& peaks) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [mode, peak] : peaks) out[std::string(amp::to_string(mode))] = peak;
  return out;
}

// The registry entry of "model"'s type, which it also writes into `type`.
const models::ModelEntry& model_entry(ObjectReader& model, std::string& type) {
  type = model.required_string("type");
  const auto* entry = models::find_model(type);
  if (!entry) {
    throw InputError(model.path_of("type"),
                     "unknown model \"" + type + "\"; expected one of " + models::model_names());
  }
  return *entry;
}

// A reference model's task must be the data's: next-token data for a language model, features otherwise.
void check_task(const models::ModelEntry& entry, const ObjectReader& model, const data::DataOptions& data) {
  std::string problem;
  if (entry.language_model && !data.takes_tokens())
    problem = " is a language model: it needs token data (synthetic_tokens or tokens)";
  else if (entry.language_model && !data.is_language_model())
    problem = " is a language model: it needs next-token data (synthetic_tokens without classes, or tokens)";
  else if (!entry.language_model && data.is_language_model())
    problem = " classifies images or vectors: token data needs a language model (gpt)";
  else if (!entry.language_model && data.takes_tokens())
    problem =
        " classifies images or vectors: sequence classes need a model that takes token ids (an exported one)";
  if (!problem.empty()) throw InputError(model.path_of("type"), entry.name + problem);
}

// The data for a model that fixes its own input (an exported program): sized to it where the config
// leaves sizes out (all of it when "data" is missing), then checked against it.
void parse_data_for_model(ObjectReader& root, ExperimentConfig& config) {
  const auto fit = *config.model.spec->input_fit();
  const bool given = root.has("data");
  config.data = given ? parse_data(root.object("data"), config.seed, fitted_to(fit))
                      : synthetic_data_for(fit, config.seed);
  try {
    config.model.spec->check_input(input_spec(config.data));
  } catch (const InputError& e) {
    throw e.located(given ? input_pointer(config.data) : "/data");
  }
}

// "model" and "data": a reference model is read for the data, a model that fixes its own input before it.
void parse_model_and_data(ObjectReader& root, ExperimentConfig& config) {
  ObjectReader model = root.required_object("model");
  const auto& entry = model_entry(model, config.model.type);
  ObjectReader options = model.object("options");
  if (entry.open) {
    config.model.spec = entry.open(options);
    parse_data_for_model(root, config);
  } else {
    config.data = parse_data(root.required_object("data"), config.seed, {});
    check_task(entry, model, config.data);
    try {
      config.model.spec = entry.read(options, input_spec(config.data));
    } catch (const InputError& e) {
      throw e.located(input_pointer(config.data));  // the model does not fit what the data gives it
    }
  }
  model.finish();
}

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

nlohmann::json train_json(const TrainConfig& t) {
  nlohmann::json train{{"epochs", t.epochs},
                       {"batch_size", t.batch_size},
                       {"optimizer", optimizer_json(t.optimizer)},
                       {"accumulation_steps", t.accumulation_steps},
                       {"warmup_steps", t.warmup_steps},
                       {"cudnn_benchmark", t.cudnn_benchmark},
                       {"channels_last", t.channels_last}};
  if (t.clip_grad_norm) train["clip_grad_norm"] = *t.clip_grad_norm;
  train["threads"] = t.threads ? nlohmann::json(*t.threads) : nlohmann::json();
  return train;
}

nlohmann::json precision_json(const PrecisionConfig& p) {
  nlohmann::json modes = nlohmann::json::array();
  for (auto mode : p.modes) modes.push_back(std::string(amp::to_string(mode)));
  const auto& s = p.grad_scaler;
  nlohmann::json precision = {{"modes", modes},
                              {"grad_scaler",
                               {{"init_scale", s.init_scale},
                                {"growth_factor", s.growth_factor},
                                {"backoff_factor", s.backoff_factor},
                                {"growth_interval", s.growth_interval}}},
                              {"fidelity_tolerance", p.fidelity_tolerance},
                              {"fidelity_seeds", p.fidelity_seeds}};
  return precision;
}

// Keys added after configs were first hashed (environment.config_hash, which compare checks) are written
// only when they are not at their default, so that a config without them keeps its hash: the one list of
// them, each with the value that leaves it out.
void leave_out_defaults(nlohmann::json& config) {
  static const std::vector<std::pair<nlohmann::json::json_pointer, nlohmann::json>> kLeftOutAt{
      {nlohmann::json::json_pointer("/train/threads"), nullptr},            // LibTorch's default
      {nlohmann::json::json_pointer("/precision/fidelity_seeds"), 1},       // the run's own seed only
      {nlohmann::json::json_pointer("/profile"), nullptr},                  // no profiled pass
      {nlohmann::json::json_pointer("/data/synthetic_tokens/classes"), 0},  // next-token targets
  };
  for (const auto& [key, left_out_at] : kLeftOutAt) {
    if (config.contains(key) && config.at(key) == left_out_at)
      config.at(key.parent_pointer()).erase(key.back());
  }
}

}  // namespace

std::string_view to_string(Gate gate) {
  static constexpr util::EnumNames<Gate, 4> kGateNames{
      {{Gate::min_speedup, "min_speedup"},
       {Gate::max_val_loss_delta, "max_val_loss_delta"},
       {Gate::max_memory_ratio, "max_memory_ratio"},
       {Gate::min_low_precision_flop_share, "min_low_precision_flop_share"}}};
  return util::name_of(kGateNames, gate);
}

ExperimentConfig parse_experiment_config(const nlohmann::json& document) {
  ObjectReader root(document, "");
  ExperimentConfig config;
  config.name = parse_name(root);
  config.seed = static_cast<uint64_t>(root.integer("seed", config.seed, 0));
  config.repeats = root.integer("repeats", config.repeats, 1, 1000);
  parse_model_and_data(root, config);
  config.train = parse_train(root.object("train"));
  config.precision = parse_precision(root.object("precision"));
  config.device = parse_device(root, config.device);
  config.profile = parse_profile(root);
  config.gates = parse_gates(root.object("gates"), config.precision.modes);
  config.peak_tflops = parse_peak_tflops(root, config.precision.modes);
  ObjectReader output = root.object("output");
  config.output_dir = output.string("dir", config.output_dir);
  output.finish();
  root.finish();
  check_combinations(config);
  return config;
}

models::InputSpec input_spec(const data::DataOptions& data) {
  return {data.sample_shape(), data.classes(), data.takes_tokens(),
          data.takes_tokens() && !data.is_language_model()};
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
  try {
    return util::parse_json_strictly(text);
  } catch (const nlohmann::json::exception& e) {
    // Syntax errors, but also numbers too large for a double (out_of_range: found by fuzzing).
    // nlohmann prefixes "[json.exception.parse_error.101] "; the rest names what and where.
    std::string message = e.what();
    // The parser quotes what it last read, which may be any bytes: keep the line printable.
    for (char& c : message) {
      if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f) c = '?';
    }
    auto bracket = message.find("] ");
    throw InputError(
        path.string(),
        "invalid JSON: " + (bracket == std::string::npos ? message : message.substr(bracket + 2)));
  }
}

nlohmann::json to_json(const ExperimentConfig& c) {
  nlohmann::json out = {
      {"name", c.name},
      {"seed", c.seed},
      {"repeats", c.repeats},
      {"model", {{"type", c.model.type}, {"options", c.model.spec->options_json()}}},
      {"data", data_json(c.data)},
      {"train", train_json(c.train)},
      {"precision", precision_json(c.precision)},
      {"device", c.device},
      {"output", {{"dir", c.output_dir}}},
      {"gates", gates_json(c.gates)},
      {"peak_tflops", peak_tflops_json(c.peak_tflops)},
      {"profile", c.profile.enabled()
                      ? nlohmann::json{{"steps", c.profile.steps}, {"warmup_steps", c.profile.warmup_steps}}
                      : nlohmann::json()},
  };
  leave_out_defaults(out);
  return out;
}

}  // namespace ampbench::config
