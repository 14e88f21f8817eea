// The recipe table and the lists that must change with it: every mode is one row, and what holds for
// every mode is tested over the table; summary.csv and the docs' table of warning kinds are checked against
// their one declaration (the schemas are written from them: test_schemas.cpp).
#include <algorithm>
#include <fstream>
#include <set>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "amp/mode_support.h"
#include "amp/precision_mode.h"
#include "build_paths.h"
#include "measure/cpu_features.h"
#include "read_file.h"
#include "report/summary_fields.h"

namespace {

using ampbench::amp::ComputeCapability;
using ampbench::amp::MatrixArithmetic;
using ampbench::amp::PrecisionMode;
using ampbench::amp::recipe_of;

nlohmann::json schema(const std::string& name) {
  return nlohmann::json::parse(
      ampbench::testing::read_file(ampbench::testing::source_dir() + "/docs/" + name));
}

std::string name_of(const testing::TestParamInfo<PrecisionMode>& info) {
  std::string name(ampbench::amp::to_string(info.param));
  std::replace(name.begin(), name.end(), '-', '_');
  return name;
}

class EveryMode : public testing::TestWithParam<PrecisionMode> {};

}  // namespace

namespace ampbench::amp {
// How gtest names a mode in a test's parameter.
inline void PrintTo(PrecisionMode mode, std::ostream* out) { *out << to_string(mode); }
}  // namespace ampbench::amp

namespace {

TEST_P(EveryMode, ItsRowIsAtItsEnumValueAndItsNameRoundTrips) {
  const auto& row = recipe_of(GetParam());
  EXPECT_EQ(row.mode, GetParam());
  EXPECT_EQ(ampbench::amp::parse_precision_mode(row.name), GetParam());
  EXPECT_EQ(ampbench::amp::precision_mode_named(std::string(row.name)), GetParam());
  EXPECT_FALSE(row.summary.empty());
}

TEST_P(EveryMode, ItsPropertiesAgreeWithEachOther) {
  const auto& row = recipe_of(GetParam());
  // fp16's narrow range is what a GradScaler guards; nothing else has one.
  EXPECT_EQ(row.gradient_guard == ampbench::amp::GradientGuard::grad_scaler,
            row.autocast == c10::ScalarType::Half);
  // A float8 recipe runs beside bf16 autocast, and its speed is read against bf16 too.
  if (row.linear_recipe) {
    EXPECT_EQ(row.autocast, c10::ScalarType::BFloat16);
    EXPECT_TRUE(row.arithmetic == MatrixArithmetic::fp8 || row.arithmetic == MatrixArithmetic::fp4);
  }
  // The lost-update audit is for weights stored in 16 bits; rounding other than to nearest needs them.
  EXPECT_EQ(row.audited, row.weights != c10::ScalarType::Float);
  if (row.weights == c10::ScalarType::Float) {
    EXPECT_EQ(row.update_rounding, ampbench::optim::WeightRounding::nearest);
  }
  // The summary's fields are named for bf16 (speedup_vs_bf16, static_ratio_vs_bf16).
  if (row.also_against) {
    EXPECT_EQ(*row.also_against, PrecisionMode::bf16);
  }
  // TF32 everywhere but in the strict fp32 baseline and under fp16 autocast (PyTorch's usual recipes).
  EXPECT_EQ(row.tf32, row.arithmetic != MatrixArithmetic::fp32 && row.autocast != c10::ScalarType::Half);
}

TEST_P(EveryMode, TheSupportCheckAnswersOnThisCpuAndOnGpusAroundItsCapability) {
  const auto& row = recipe_of(GetParam());
  const auto cpu = ampbench::measure::cpu_16bit_arithmetic();
  const auto here = ampbench::amp::check_mode_support(GetParam(), c10::DeviceType::CPU, std::nullopt, cpu);
  // Only TF32, a format of NVIDIA tensor cores, cannot run on a CPU at all.
  EXPECT_EQ(here.skip_reason.has_value(), row.arithmetic == MatrixArithmetic::tf32);
  if (row.arithmetic == MatrixArithmetic::fp8) {
    EXPECT_TRUE(here.caveat);
  }
  if (row.arithmetic == MatrixArithmetic::fp32) {
    EXPECT_FALSE(here.caveat);
  }
  const ComputeCapability newest{12, 0};
  EXPECT_FALSE(
      ampbench::amp::check_mode_support(GetParam(), c10::DeviceType::CUDA, newest).skip_reason.has_value());
  if (row.needs_capability) {
    const auto& need = *row.needs_capability;
    const ComputeCapability below{need.major - (need.minor == 0 ? 1 : 0),
                                  need.minor == 0 ? 5 : need.minor - 1};
    const auto old = ampbench::amp::check_mode_support(GetParam(), c10::DeviceType::CUDA, below);
    ASSERT_TRUE(old.skip_reason);
    EXPECT_NE(old.skip_reason->find(ampbench::amp::to_string(need)), std::string::npos) << *old.skip_reason;
    EXPECT_FALSE(ampbench::amp::check_mode_support(GetParam(), c10::DeviceType::CUDA, need).skip_reason);
  }
}

INSTANTIATE_TEST_SUITE_P(RecipeTable, EveryMode, testing::ValuesIn(ampbench::amp::all_precision_modes()),
                         name_of);

bool refers_to_the_mode_list(const nlohmann::json& property) {
  if (property.value("$ref", "") == "#/$defs/mode") return true;
  for (const auto& alternative : property.value("anyOf", nlohmann::json::array()))
    if (alternative.value("$ref", "") == "#/$defs/mode") return true;
  return false;
}

// Every "mode" property refers to the schema's one list of modes, and no other enum lists a mode.
void expect_modes_referred(const nlohmann::json& node, const std::string& where, int& modes) {
  if (node.is_object()) {
    if (node.contains("properties") && node["properties"].contains("mode")) {
      ++modes;
      EXPECT_TRUE(refers_to_the_mode_list(node["properties"]["mode"])) << where << "/properties/mode";
    }
    if (node.contains("enum") && node["enum"].is_array()) {
      for (const auto& value : node["enum"])
        EXPECT_NE(value, "fp8-rowwise") << where << " lists modes of its own";
    }
    for (const auto& [key, child] : node.items())
      if (key != "$defs") expect_modes_referred(child, where + "/" + key, modes);
  } else if (node.is_array()) {
    for (size_t i = 0; i < node.size(); ++i)
      expect_modes_referred(node[i], where + "/" + std::to_string(i), modes);
  }
}

// The schemas' mode list is written from the table (test_schemas.cpp); every property that holds a mode
// refers to it.
TEST(RecipeTable, EveryModePropertyOfTheSchemasRefersToTheOneModeList) {
  for (const auto* name : {"report.schema.json", "sweep.schema.json", "max_batch.schema.json"}) {
    SCOPED_TRACE(name);
    const auto document = schema(name);
    int modes = 0;
    expect_modes_referred(document, name, modes);
    EXPECT_GT(modes, 0) << "no property refers to the modes";
  }
  EXPECT_TRUE(refers_to_the_mode_list(
      schema("report.schema.json")["properties"]["modes"]["items"]["properties"]["name"]));
}

TEST(RecipeTable, TheDefaultSetIsTheFourModesOfAutomaticMixedPrecision) {
  EXPECT_EQ(
      ampbench::amp::default_precision_modes(),
      (std::vector{PrecisionMode::fp32, PrecisionMode::tf32, PrecisionMode::fp16, PrecisionMode::bf16}));
}

TEST(ReportFields, SummaryCsvHasAColumnForEachScalarIntervalEndAndDeclaredPart) {
  const auto header = ampbench::report::summary_csv_header();
  const std::set<std::string> columns(header.begin(), header.end());
  EXPECT_EQ(columns.size(), header.size()) << "a column twice";
  for (const auto& field : ampbench::report::summary_fields()) {
    const std::string name(field.name);
    switch (field.type) {
      case ampbench::report::FieldType::list:
        EXPECT_FALSE(columns.contains(name));
        break;
      case ampbench::report::FieldType::interval:
        EXPECT_TRUE(columns.contains(name + ".low") && columns.contains(name + ".high")) << name;
        break;
      case ampbench::report::FieldType::object:
        for (auto part : field.csv_parts)
          EXPECT_TRUE(columns.contains(name + "." + std::string(part))) << name;
        break;
      default:
        EXPECT_TRUE(columns.contains(name)) << name;
    }
  }
}

// The warning kinds are in the enum's order, and docs/reports.md's table of kinds gives each its meaning as
// declared (the schema's enum is written from them: test_schemas.cpp).
TEST(ReportFields, WarningKindsAreInTheEnumsOrderAndTheDocsTable) {
  const auto& kinds = ampbench::report::warning_kinds();
  for (size_t i = 0; i < kinds.size(); ++i)
    EXPECT_EQ(static_cast<size_t>(kinds[i].kind), i) << kinds[i].name << " is out of the enum's order";
  const auto docs = ampbench::testing::read_file(ampbench::testing::source_dir() + "/docs/reports.md");
  for (const auto& row : kinds) {
    const auto line = "| `" + std::string(row.name) + "` | " + std::string(row.meaning) + " |";
    EXPECT_NE(docs.find(line), std::string::npos) << "docs/reports.md lacks the row " << line;
  }
}

}  // namespace
