#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "report/report.h"

namespace ampbench::report {

// What a summary field holds, and so how report.json's schema types it and summary.csv spells it:
//   integer, number, string, boolean: one value (schema "integer", "number", "string", "boolean"), one CSV
//   column (a boolean's "true" or "false");
//   interval: a 95 % interval [low, high] (schema "array"), the columns NAME.low and NAME.high;
//   object: named figures (schema "object"), a column NAME.PART for each of the field's csv_parts;
//   list: a list per trial or epoch (schema "array"), no CSV column (report.csv has those rows).
enum class FieldType { integer, number, string, boolean, interval, object, list };
std::string_view schema_type(FieldType type);

// One field of a mode's summary: report.json's summary[] key, its type, whether it may be null, what it
// means, and how to take it from a ModeSummary. Declared once: the JSON writer, the CSV writer and the test
// against docs/report.schema.json all read summary_fields(), so a field cannot live in one and not another.
struct SummaryField {
  std::string_view name;
  FieldType type;
  bool nullable;
  std::string_view description;
  std::function<nlohmann::json(const ModeSummary&)> value;
  // An object's figures that summary.csv has a column for: a key, or a path of keys through nested objects
  // and intervals ("val_loss.mean", "delta_interval_95.low").
  std::vector<std::string_view> csv_parts = {};
};

// Every field, in the order of summary.csv's columns and of the schema's `required` list (report.json's
// objects sort their keys).
const std::vector<SummaryField>& summary_fields();

// A mode's summary as report.json's summary[] writes it.
nlohmann::json summary_json(const ModeSummary& summary);

// summary.csv's header, and a mode's row, each field's columns in order.
std::vector<std::string> summary_csv_header();
std::vector<std::string> summary_csv_cells(const ModeSummary& summary);

}  // namespace ampbench::report
