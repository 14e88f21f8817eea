#pragma once

#include <optional>
#include <string>

#include "report/report.h"

namespace ampbench::report {

// Why a float8 or float4 mode ran no linear layer in its format in any finished trial (timed or fidelity):
// every product stayed in bf16 (kept by the layer filter, shapes the format cannot take, no linear layer at
// all), so nothing it measured is the format's; its layers and why, "layers.0 (...), layers.2 (...)".
// Empty where it ran one, for the other modes, and for a mode with no finished trial.
std::optional<std::string> format_not_applied(amp::PrecisionMode mode,
                                              const train::ExperimentResult& measured);

}  // namespace ampbench::report
