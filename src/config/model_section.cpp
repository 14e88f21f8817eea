#include "config/model_section.h"

#include "config/data_section.h"

namespace ampbench::config {
namespace {

using util::InputError;
using util::ObjectReader;

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
data::DataOptions parse_data_for_model(ObjectReader& root, uint64_t seed, const models::ModelSpec& spec) {
  const auto fit = *spec.input_fit();
  const bool given = root.has("data");
  auto data = given ? parse_data(root.object("data"), seed, fit) : synthetic_data_for(fit, seed);
  try {
    spec.check_input(input_spec(data));
  } catch (const InputError& e) {
    throw e.located(given ? input_pointer(data) : "/data");
  }
  return data;
}

}  // namespace

void parse_model_and_data(ObjectReader& root, uint64_t seed, ModelConfig& model_config,
                          data::DataOptions& data) {
  ObjectReader model = root.required_object("model");
  const auto& entry = model_entry(model, model_config.type);
  ObjectReader options = model.object("options");
  if (entry.open) {
    model_config.spec = entry.open(options);
    data = parse_data_for_model(root, seed, *model_config.spec);
  } else {
    data = parse_data(root.required_object("data"), seed, std::nullopt);
    check_task(entry, model, data);
    try {
      model_config.spec = entry.read(options, input_spec(data));
    } catch (const InputError& e) {
      throw e.located(input_pointer(data));  // the model does not fit what the data gives it
    }
  }
  model.finish();
}

nlohmann::json model_json(const ModelConfig& model) {
  return {{"type", model.type}, {"options", model.spec->options_json()}};
}

}  // namespace ampbench::config
