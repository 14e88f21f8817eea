// The schema check ampbench runs on the reports it reads back (util/json_schema.h), keyword by keyword; and
// the schemas docs/ publishes, embedded as the build found them. Its agreement with Python's jsonschema on
// mutated real reports is tests/test_cli_schema_check.cpp's.
#include <fstream>
#include <optional>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "build_paths.h"
#include "util/embedded_schemas.h"
#include "util/input_error.h"
#include "util/json_schema.h"

namespace ampbench::testing {
namespace {

using nlohmann::json;

std::string violation(const json& schema, const json& document) {
  return util::JsonSchema(schema).first_violation(document).value_or("valid");
}

TEST(JsonSchema, ChecksEachKeywordAndNamesThePlaceAndTheRule) {
  const auto schema = json::parse(R"({
    "$defs": {"count": {"type": "integer", "minimum": 0}},
    "type": "object",
    "required": ["name", "runs"],
    "additionalProperties": false,
    "properties": {
      "name": {"type": "string"},
      "kind": {"enum": ["a", "b"]},
      "version": {"const": 3},
      "share": {"type": ["number", "null"], "minimum": 0, "maximum": 1},
      "runs": {"type": "array", "minItems": 1, "maxItems": 2, "items": {"$ref": "#/$defs/count"}},
      "either": {"anyOf": [{"type": "string"}, {"type": "integer", "minimum": 10}]},
      "open": {"type": "object", "additionalProperties": {"type": "boolean"}}
    }})");
  const auto valid = json::parse(R"({"name": "x", "kind": "b", "version": 3, "share": null, "runs": [0, 2.0],
                                      "either": 12, "open": {"any/key": true}})");
  EXPECT_EQ(violation(schema, valid), "valid");
  // Each change to the valid document, and the first violation it makes.
  struct Change {
    std::string at;
    std::optional<json> value;  // none: the key deleted
    std::string expected;
  };
  const std::vector<Change> changes{
      {"/name", std::nullopt, "the document: the required key \"name\" is missing"},
      {"/name", true, "/name: true is not of type \"string\""},
      {"/runs/0", -7, "/runs/0: -7 is below the minimum 0"},
      {"/runs/1", 1.5, "/runs/1: 1.5 is not of type \"integer\""},
      {"/runs", json::array(), "/runs: 0 items, fewer than 1"},
      {"/runs", json::array({1, 2, 3}), "/runs: 3 items, more than 2"},
      {"/share", 1.5, "/share: 1.5 is above the maximum 1"},
      {"/kind", "c", "/kind: \"c\" is not one of [\"a\",\"b\"]"},
      {"/version", 4, "/version: 4 is not 3"},
      {"/either", 9, "/either: 9 matches none of the schemas allowed here"},
      {"/open/any~1key", "yes", "/open/any~1key: \"yes\" is not of type \"boolean\""},
      {"/extra", 1, "/extra: the key is not one the schema allows here"},
  };
  for (const auto& change : changes) {
    SCOPED_TRACE(change.at);
    auto document = valid;
    const json::json_pointer pointer(change.at);
    if (change.value)
      document[pointer] = *change.value;
    else
      document[pointer.parent_pointer()].erase(pointer.back());
    EXPECT_EQ(violation(schema, document), change.expected);
  }
}

TEST(JsonSchema, RefusesASchemaWithARuleItDoesNotCheck) {
  for (const auto& schema :
       {json::parse(R"({"properties": {"a": {"pattern": "^x"}}})"),
        json::parse(R"({"items": {"$ref": "#/$defs/none"}})"), json::parse(R"({"type": "decimal"})")}) {
    SCOPED_TRACE(schema.dump());
    EXPECT_THROW(util::JsonSchema{schema}, std::invalid_argument);
  }
}

// Each schema docs/ publishes is embedded as it is on disk, and uses only rules the check knows.
TEST(JsonSchema, TheEmbeddedSchemasAreDocsOwnAndEachLoads) {
  for (const char* file : {"report.schema.json", "sweep.schema.json", "max_batch.schema.json"}) {
    SCOPED_TRACE(file);
    std::ifstream in(std::string(source_dir()) + "/docs/" + file);
    std::stringstream text;
    text << in.rdbuf();
    EXPECT_EQ(util::embedded_schema(file), text.str());
    EXPECT_NO_THROW(util::JsonSchema(json::parse(util::embedded_schema(file))));
  }
  EXPECT_THROW(util::embedded_schema("other.schema.json"), std::invalid_argument);
}

// merge copies each mode's figures from a point's report.json summary into sweep.json: every bound the
// sweep's schema sets on them, the report's schema sets at least as tightly, so that a report that passes its
// schema makes a sweep that passes its own.
TEST(JsonSchema, TheReportBoundsEachFigureASweepCopiesAsTightlyAsTheSweep) {
  const auto report = json::parse(util::embedded_schema("report.schema.json"));
  const auto sweep = json::parse(util::embedded_schema("sweep.schema.json"));
  const auto& summary = report["properties"]["summary"]["items"]["properties"];
  const auto& copied = sweep["properties"]["points"]["items"]["properties"]["modes"]["items"]["properties"];
  int bounded = 0;
  for (const auto& [name, figure] : copied.items()) {
    if (!figure.contains("minimum")) continue;
    SCOPED_TRACE(name);
    ++bounded;
    ASSERT_TRUE(summary.contains(name));
    ASSERT_TRUE(summary[name].contains("minimum"));
    EXPECT_GE(summary[name]["minimum"].get<double>(), figure["minimum"].get<double>());
  }
  EXPECT_GE(bounded, 2);  // trials and peak_bytes
}

TEST(JsonSchema, RequireSchemaNamesTheFileTheSchemaAndThePlace) {
  try {
    util::require_schema(json::parse(R"({"sweep_schema_version": 2})"), "sweep.schema.json", "a/sweep.json");
    FAIL() << "an old sweep report passed";
  } catch (const util::InputError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("a/sweep.json: does not match docs/sweep.schema.json: ", 0), 0u)
        << e.what();
  }
}

}  // namespace
}  // namespace ampbench::testing
