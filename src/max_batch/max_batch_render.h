#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "max_batch/max_batch_report.h"
#include "util/output_files.h"

namespace ampbench::max_batch {

// max_batch.json's version; docs/max_batch.schema.json describes it.
constexpr int kMaxBatchSchemaVersion = 2;

// The largest-batch search's report files and console table, pure functions of the report.
nlohmann::json to_json(const MaxBatchReport& report);
std::string to_csv(const MaxBatchReport& report);  // a row per mode
std::string to_markdown(const MaxBatchReport& report);
std::string to_console(const MaxBatchReport& report);
// The max-batch folder's files: max_batch.json, max_batch.csv and max_batch.md.
std::vector<util::OutputFile> max_batch_files(const MaxBatchReport& report);

}  // namespace ampbench::max_batch
