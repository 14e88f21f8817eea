#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "passes/pass_records.h"
#include "util/text_table.h"

namespace ampbench::report {

// A numerics pass's layers against fp32 (passes/departure.h), as report.json's numerics[].departures: per
// layer its output's relative error and weight-gradient cosine against the fp32 copy, and per block-scaled
// operand what the quantization did.
nlohmann::json departures_json(const train::NumericsRecord& record);

// Per mode and layer, the layers that depart most first: output error, weight-gradient cosine, and for a
// block-scaled mode its operands' quantization error and saturated and flushed blocks. Header first; empty
// without a pass that compared.
util::TextRows departures_table(const std::vector<train::NumericsRecord>& records);

// One line per mode that was compared: the layers that depart most from fp32, which a layer filter would keep
// in bf16.
std::vector<std::string> departure_lines(const std::vector<train::NumericsRecord>& records);

// The layers of `record`, those that depart most from fp32 first (by output error).
std::vector<const train::LayerDeparture*> most_departing(const train::NumericsRecord& record);

}  // namespace ampbench::report
