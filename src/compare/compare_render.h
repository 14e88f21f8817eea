#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "compare/compare.h"

namespace ampbench::compare {

// `compare`'s renderers, pure functions of the Comparison; each cell and line carries its verdict by the
// one name to_string(ChangeVerdict) gives it.

// The table per mode, the limits in force, then a line per finding ("regression: ...", "within_noise: ...").
std::string comparison_to_console(const Comparison& comparison);
std::string comparison_to_markdown(const Comparison& comparison);

// compare's JSON (--export-json): versioned by kCompareSchemaVersion, described in docs/reports.md.
inline constexpr int kCompareSchemaVersion = 1;
nlohmann::json comparison_to_json(const Comparison& comparison);

}  // namespace ampbench::compare
