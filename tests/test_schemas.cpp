// docs/*.schema.json: the lists in them are written from the C++ declarations, and their versions are
// forced up when their shape changes.
//
// Generated: the mode enum of every schema (the recipe table), report.json's `modes` items (the row's
// fields, amp::recipe_fields()), its `summary` items (report::summary_fields(): each field's type,
// description and place in `required`; a field's nested shape stays as written) and its warning kinds
// (report::warning_kinds()). The test regenerates those parts and fails where a file differs; with
// AMPBENCH_WRITE_SCHEMAS=1 it writes them instead, then the files are committed:
//   AMPBENCH_WRITE_SCHEMAS=1 build/tests/ampbench_tests --gtest_filter='Docs/Schema.*'

//
// Versioned: each schema's shape (the file without its descriptions) has a fingerprint recorded for its
// version below. A change of shape under the same version fails: raise the version in the C++ (and the
// schema's const follows from it here) and record the new fingerprint.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "amp/precision_mode.h"
#include "build_paths.h"
#include "max_batch/max_batch_render.h"
#include "read_file.h"
#include "report/report.h"
#include "report/summary_fields.h"
#include "sweep/sweep_render.h"
#include "util/fnv1a.h"

namespace {

using ordered_json = nlohmann::ordered_json;

std::string schema_path(const std::string& name) { return ampbench::testing::source_dir() + "/docs/" + name; }

ordered_json mode_enum() {
  ordered_json names = ordered_json::array();
  for (auto mode : ampbench::amp::all_precision_modes()) names.push_back(ampbench::amp::to_string(mode));
  return names;
}

// A row field's schema: the mode list for the name, a boolean, or one of the values the rows have.
ordered_json recipe_field_schema(const ampbench::amp::RecipeField& field) {
  if (field.name == "name") return {{"$ref", "#/$defs/mode"}};
  ordered_json out;
  if (field.boolean) {
    out["type"] = "boolean";
  } else {
    ordered_json values = ordered_json::array();
    for (const auto& row : ampbench::amp::precision_recipes()) {
      const ordered_json value = field.value(row);
      if (std::find(values.begin(), values.end(), value) == values.end()) values.push_back(value);
    }
    out["enum"] = values;
  }
  if (!field.description.empty()) out["description"] = field.description;
  return out;
}

void write_modes(ordered_json& schema) {
  auto& items = schema["properties"]["modes"]["items"];
  items["type"] = "object";
  items["additionalProperties"] = false;
  ordered_json properties = ordered_json::object(), required = ordered_json::array();
  for (const auto& field : ampbench::amp::recipe_fields()) {
    properties[std::string(field.name)] = recipe_field_schema(field);
    required.push_back(field.name);
  }
  items["properties"] = properties;
  items["required"] = required;
}

// Each declared field's type and description, in the declared order; what else the file says of a field
// (an object's figures, an interval's items) is kept.
void write_summary(ordered_json& schema) {
  auto& items = schema["properties"]["summary"]["items"];
  const auto written = items["properties"];
  ordered_json properties = ordered_json::object(), required = ordered_json::array();
  for (const auto& field : ampbench::report::summary_fields()) {
    const std::string name(field.name);
    ordered_json property = written.contains(name) ? written[name] : ordered_json::object();
    const std::string type(ampbench::report::schema_type(field.type));
    property["type"] = field.nullable ? ordered_json{type, "null"} : ordered_json(type);
    property["description"] = field.description;
    properties[name] = property;
    required.push_back(name);
  }
  items["properties"] = properties;
  items["required"] = required;
  items["additionalProperties"] = false;
}

void write_warning_kinds(ordered_json& schema) {
  ordered_json names = ordered_json::array();
  for (const auto& row : ampbench::report::warning_kinds()) names.push_back(row.name);
  schema["properties"]["warnings"]["items"]["properties"]["kind"]["enum"] = names;
}

struct SchemaFile {
  std::string name;
  std::string version_key;
  int version;
  void (*generate)(ordered_json&);
};

const std::vector<SchemaFile>& schema_files() {
  static const std::vector<SchemaFile> files{
      {"report.schema.json", "schema_version", ampbench::report::kSchemaVersion,
       [](ordered_json& s) {
         write_modes(s);
         write_summary(s);
         write_warning_kinds(s);
       }},
      {"sweep.schema.json", "sweep_schema_version", ampbench::sweep::kSweepSchemaVersion,
       [](ordered_json&) {}},
      {"max_batch.schema.json", "max_batch_schema_version", ampbench::max_batch::kMaxBatchSchemaVersion,
       [](ordered_json&) {}},
  };
  return files;
}

ordered_json generated(const SchemaFile& file, ordered_json schema) {
  schema["$defs"]["mode"]["enum"] = mode_enum();
  schema["properties"][file.version_key]["const"] = file.version;
  file.generate(schema);
  return schema;
}

// The shape: the schema without its prose, keys sorted.
nlohmann::json without_prose(const nlohmann::json& node) {
  if (node.is_array()) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& item : node) out.push_back(without_prose(item));
    return out;
  }
  if (!node.is_object()) return node;
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [key, value] : node.items())
    if (!((key == "description" || key == "title") && value.is_string())) out[key] = without_prose(value);
  return out;
}

std::string shape_fingerprint(const std::string& text) {
  const auto shape = without_prose(nlohmann::json::parse(text)).dump();
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx",
                static_cast<unsigned long long>(ampbench::util::fnv1a(shape.data(), shape.size())));
  return hex;
}

// Each schema's shape at each version since this record began: a new shape needs a new version.
struct RecordedShape {
  std::string schema;
  int version;
  std::string fingerprint;
};
const std::vector<RecordedShape> kRecordedShapes{
    {"report.schema.json", 19, "95cff9cd572707aa"},   {"report.schema.json", 20, "abaea4ac77f68fbf"},
    {"report.schema.json", 21, "de2e27265ec8a6cc"},   {"sweep.schema.json", 2, "670b3c27fcac8862"},
    {"sweep.schema.json", 3, "fae43086d4b80fef"},     {"max_batch.schema.json", 1, "decdd03913787390"},
    {"max_batch.schema.json", 2, "1e1fde902ec606e6"},
};

// How gtest names a schema in a failure.
void PrintTo(const SchemaFile& file, std::ostream* out) { *out << file.name; }

class Schema : public testing::TestWithParam<SchemaFile> {};

TEST_P(Schema, ItsListsAreTheDeclarations) {
  const auto path = schema_path(GetParam().name);
  const auto text = ampbench::testing::read_file(path);
  const auto expected = generated(GetParam(), ordered_json::parse(text)).dump(2) + "\n";
  if (std::getenv("AMPBENCH_WRITE_SCHEMAS")) {
    std::ofstream(path, std::ios::binary) << expected;
    GTEST_SKIP() << "wrote " << path;
  }
  EXPECT_TRUE(text == expected) << path << " differs from the declarations it is written from: write it "
                                << "with AMPBENCH_WRITE_SCHEMAS=1 (see tests/test_schemas.cpp) and commit it";
}

TEST_P(Schema, ItsShapeHasAVersionOfItsOwn) {
  const auto fingerprint = shape_fingerprint(ampbench::testing::read_file(schema_path(GetParam().name)));
  bool recorded = false;
  for (const auto& shape : kRecordedShapes) {
    if (shape.schema != GetParam().name) continue;
    if (shape.version != GetParam().version) continue;
    recorded = true;
    EXPECT_EQ(shape.fingerprint, fingerprint)
        << GetParam().name << " changed shape under version " << GetParam().version
        << ": raise the version and record the new shape's fingerprint, " << fingerprint;
  }
  EXPECT_TRUE(recorded) << "record " << GetParam().name << "'s shape at version " << GetParam().version
                        << " in kRecordedShapes: {\"" << GetParam().name << "\", " << GetParam().version
                        << ", \"" << fingerprint << "\"}";
}

INSTANTIATE_TEST_SUITE_P(Docs, Schema, testing::ValuesIn(schema_files()),
                         [](const testing::TestParamInfo<SchemaFile>& info) {
                           auto name = info.param.name.substr(0, info.param.name.find('.'));
                           std::erase(name, '_');
                           return name;
                         });

// The docs name each schema's version once, and it is the C++'s.
TEST(SchemaVersion, TheDocsNameTheCurrentVersions) {
  const auto docs = ampbench::testing::read_file(ampbench::testing::source_dir() + "/docs/reports.md");
  for (const auto& file : schema_files()) {
    const auto line = "(`" + file.version_key + "` " + std::to_string(file.version);
    EXPECT_NE(docs.find(line), std::string::npos) << "docs/reports.md lacks " << line;
  }
}

}  // namespace
