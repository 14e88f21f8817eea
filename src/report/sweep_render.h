#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "report/sweep_report.h"

namespace ampbench::report {

// sweep.json's version; docs/sweep.schema.json describes it.
constexpr int kSweepSchemaVersion = 1;

// The sweep's report files and console table, pure functions of the report.
nlohmann::json to_json(const SweepReport& report);
std::string to_csv(const SweepReport& report);  // a row per point and mode
std::string to_markdown(const SweepReport& report);
std::string to_console(const SweepReport& report);

}  // namespace ampbench::report
