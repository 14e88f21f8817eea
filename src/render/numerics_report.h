#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "passes/pass_records.h"
#include "util/text_table.h"

namespace ampbench::report {

// The numerics passes as report.json's `numerics` (an array, one entry per 16-bit mode).
nlohmann::json numerics_json(const std::vector<train::NumericsRecord>& records);

// Per mode and layer: the activations' and gradients' largest magnitude, headroom to the format's largest
// value in binades, and share of subnormal elements; under a loss scale, the share of the gradients that
// would underflow without it. Header first; empty without a pass that measured.
util::TextRows numerics_layers_table(const std::vector<train::NumericsRecord>& records);
// Per mode and parameter: the largest gradient and its headroom at the loss scale, the update/weight ratio
// against the format's epsilon, and the share of updates lost were the weight stored in the format. Header
// first; empty without a pass that measured.
util::TextRows numerics_parameters_table(const std::vector<train::NumericsRecord>& records);
// What the tables' figures are and how they were taken; empty with the tables.
std::string numerics_footnote(const std::vector<train::NumericsRecord>& records);

// One line per mode for the console and report.md: the layers and parameters nearest to a limit (the least
// headroom, the most underflow, the most lost updates), or why the pass has no figures.
std::vector<std::string> numerics_lines(const std::vector<train::NumericsRecord>& records);

// numerics.csv: a row per mode and layer and per mode and parameter, every count as measured.
std::string to_numerics_csv(const std::vector<train::NumericsRecord>& records);

}  // namespace ampbench::report
