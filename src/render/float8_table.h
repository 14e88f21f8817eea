#pragma once

#include <string>

#include "report/report.h"
#include "util/text_table.h"

namespace ampbench::report {

// What the fp8 modes' linear layers did, from each fp8 mode's first finished timed trial: per layer its
// shape, its calls in float8 and in bf16 (and why), and the last training step's amax ranges of its
// input, weight and output gradient. Header first; empty when no fp8 mode finished a trial.
util::TextRows float8_layers_table(const RunReport& report);

// One line per fp8 mode: its recipe, how many linear layers ran in float8, the layers left in bf16 with
// why, and its samples/s against bf16's (with the interval) when bf16 ran too. Empty when no fp8 mode
// finished a trial.
std::string float8_footnote(const RunReport& report);

}  // namespace ampbench::report
