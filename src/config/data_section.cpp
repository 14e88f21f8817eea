#include "config/data_section.h"

#include <vector>

namespace ampbench::config {
namespace {

using util::InputError;
using util::ObjectReader;

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

}  // namespace

data::DataOptions parse_data(ObjectReader data, uint64_t seed, const std::optional<models::InputFit>& fit) {
  const auto fitted = fitted_to(fit);
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

models::InputSpec input_spec(const data::DataOptions& data) {
  return {data.sample_shape(), data.classes(), data.takes_tokens(),
          data.takes_tokens() && !data.is_language_model()};
}

nlohmann::json data_json(const data::DataOptions& d) {
  return {{data::to_string(d.source()), std::visit([](const auto& o) { return source_json(o); }, d.options)}};
}

}  // namespace ampbench::config
