#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sweep/sweep_report.h"
#include "util/output_files.h"

namespace ampbench::sweep {

// sweep.json's version; docs/sweep.schema.json describes it (and what changed since version 1, which
// ampbench still reads).
constexpr int kSweepSchemaVersion = 3;

// The sweep's report files and console table, pure functions of the report.
nlohmann::json to_json(const SweepReport& report);
std::string to_csv(const SweepReport& report);  // a row per point and mode
std::string to_markdown(const SweepReport& report);
std::string to_console(const SweepReport& report);
// The sweep folder's files: sweep.json, sweep.csv and sweep.md.
std::vector<util::OutputFile> sweep_files(const SweepReport& report);

}  // namespace ampbench::sweep
