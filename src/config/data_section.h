#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "data/data_options.h"
#include "models/registry.h"
#include "util/json_reader.h"

// The config's "data": which source, and its options (data::DataOptions, whose structs hold the defaults).
namespace ampbench::config {

// "data" holds exactly one source. A model that fixes its own input (`fit`, an exported program) gives the
// sizes the source's keys leave out; a reference model (no fit) takes the data's.
data::DataOptions parse_data(util::ObjectReader data, uint64_t seed,
                             const std::optional<models::InputFit>& fit);

// No "data" for a model that fixes its own input: synthetic data of its shape (samples, seed: defaults).
data::DataOptions synthetic_data_for(const models::InputFit& fit, uint64_t seed);

// The JSON pointer of what fixes the model's input, for the models' error messages.
std::string input_pointer(const data::DataOptions& d);

// What the data gives a model: its samples' shape, classes or vocabulary, and which kind of data it is.
models::InputSpec input_spec(const data::DataOptions& data);

// "data" as the resolved config writes it.
nlohmann::json data_json(const data::DataOptions& d);

}  // namespace ampbench::config
