#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "sweep/sweep_report.h"

namespace ampbench::sweep {

// A sweep.json back into its report (axes, shard, points with their statuses, run folders and figures; the
// shapes and fits are made again from them), strictly: a document that is not a sweep report of this
// version gets a util::InputError naming `name` and what is wrong.
SweepReport read_sweep_report(const nlohmann::json& document, const std::string& name);

}  // namespace ampbench::sweep
