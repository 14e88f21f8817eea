#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "report/max_batch_report.h"

namespace ampbench::report {

// max_batch.json's version; docs/max_batch.schema.json describes it.
constexpr int kMaxBatchSchemaVersion = 1;

// The largest-batch search's report files and console table, pure functions of the report.
nlohmann::json to_json(const MaxBatchReport& report);
std::string to_csv(const MaxBatchReport& report);  // a row per mode
std::string to_markdown(const MaxBatchReport& report);
std::string to_console(const MaxBatchReport& report);

}  // namespace ampbench::report
