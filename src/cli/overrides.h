#pragma once

#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/cli_options.h"
#include "util/input_error.h"

namespace ampbench::cli {

// The config values the command line set: each one's JSON pointer and the option that set it.
using Overrides = std::vector<std::pair<std::string, std::string>>;

// Writes the options the command line gave (--modes, --epochs, ...) into the config document and says
// which it set. Where something other than an object is in the way of a key, the document is left as it
// is there: the config parser then reports that path.
Overrides apply_overrides(nlohmann::json& doc, const CliOptions& options);

// The one line a config error gets: where it is, and the option behind it when the command line set it.
std::string config_error_line(const util::InputError& error, const Overrides& overrides);

}  // namespace ampbench::cli
