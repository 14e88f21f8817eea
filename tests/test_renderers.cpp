// Snapshot tests: every renderer on one fixed report, compared with the files in tests/snapshots/.
// After an intended change, regenerate them with AMPBENCH_UPDATE_SNAPSHOTS=1 and review the diff: while it
// is set, each snapshot test rewrites its file and fails, so an update is never taken for a pass.
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "build_paths.h"
#include "profile/profile_csv.h"
#include "render/console_report.h"
#include "render/csv_report.h"
#include "render/json_report.h"
#include "render/markdown_report.h"
#include "render/numerics_report.h"
#include "report_fixture.h"

using namespace ampbench::testing;

namespace {

void expect_snapshot(const std::string& name, const std::string& actual) {
  auto path = std::filesystem::path(source_dir()) / "tests" / "snapshots" / name;
  if (std::getenv("AMPBENCH_UPDATE_SNAPSHOTS")) {
    std::ofstream(path) << actual;
    FAIL() << "rewrote snapshot " << path << " (AMPBENCH_UPDATE_SNAPSHOTS is set): review the diff, then run "
           << "the tests without it";
  }
  std::ifstream in(path);
  ASSERT_TRUE(in) << "missing snapshot " << path << " (run with AMPBENCH_UPDATE_SNAPSHOTS=1)";
  std::stringstream expected;
  expected << in.rdbuf();
  EXPECT_EQ(actual, expected.str()) << "snapshot " << name << " differs";
}

// Whether `instance` is of a JSON-schema type ("integer" is a number without a fraction).
bool has_type(const nlohmann::json& instance, const std::string& type) {
  if (type == "object") return instance.is_object();
  if (type == "array") return instance.is_array();
  if (type == "string") return instance.is_string();
  if (type == "boolean") return instance.is_boolean();
  if (type == "null") return instance.is_null();
  if (type == "integer") return instance.is_number_integer();
  return type == "number" && instance.is_number();
}

// Every key of `instance` is declared by `schema`, every required key is present, and every value has a
// declared type and, where the schema lists them, one of the allowed values; recursively.
void expect_matches_schema(const nlohmann::json& instance, const nlohmann::json& schema,
                           const std::string& where) {
  if (schema.contains("type")) {
    auto types = schema["type"].is_array() ? schema["type"] : nlohmann::json::array({schema["type"]});
    bool matches = std::any_of(types.begin(), types.end(), [&](const nlohmann::json& type) {
      return has_type(instance, type.get<std::string>());
    });
    EXPECT_TRUE(matches) << where << " is " << instance.dump() << ", not of type " << schema["type"].dump();
  }
  if (schema.contains("enum")) {
    const auto& allowed = schema["enum"];
    EXPECT_NE(std::find(allowed.begin(), allowed.end(), instance), allowed.end())
        << where << " is " << instance.dump() << ", not one of " << allowed.dump();
  }
  if (schema.contains("properties") && instance.is_object()) {
    for (const auto& [key, value] : instance.items()) {
      ASSERT_TRUE(schema["properties"].contains(key)) << where << "/" << key << " is not in the schema";
      expect_matches_schema(value, schema["properties"][key], where + "/" + key);
    }
    for (const auto& key : schema.value("required", nlohmann::json::array())) {
      EXPECT_TRUE(instance.contains(key)) << where << "/" << key.get<std::string>() << " is required";
    }
  }
  if (schema.contains("items") && instance.is_array()) {
    for (size_t i = 0; i < instance.size(); ++i) {
      expect_matches_schema(instance[i], schema["items"], where + "/" + std::to_string(i));
    }
  }
}

}  // namespace

TEST(Renderers, Console) { expect_snapshot("console.txt", to_console(fixed_report())); }
TEST(Renderers, ConsoleInColour) { expect_snapshot("console-colour.txt", to_console(fixed_report(), true)); }
TEST(Renderers, Markdown) { expect_snapshot("report.md", to_markdown(fixed_report())); }
TEST(Renderers, Csv) { expect_snapshot("report.csv", to_csv(fixed_report())); }
TEST(Renderers, Json) { expect_snapshot("report.json", to_json(fixed_report()).dump(2) + "\n"); }

// An exported model is named by its archive in every format; a reference model has none.
TEST(Renderers, AnExportedModelIsNamedByItsArchiveEverywhere) {
  auto report = fixed_report();
  report.measured.model_frozen_parameters = 1234;
  report.measured.model_buffers = 9620;
  report.measured.model_constants = 12;
  report.context.archive = ampbench::models::ArchiveIdentity{"0123456789abcdef", "2.14.1+cu130"};
  const std::string line =
      "model: 65,536,000 trainable parameters, 1,234 frozen, 9,620 buffer elements, 12 in constants the "
      "export lifted; archive "
      "0123456789abcdef, "
      "exported by torch 2.14.1+cu130";
  EXPECT_EQ(model_line(report), line);
  EXPECT_NE(to_console(report).find(line + "\n"), std::string::npos);
  EXPECT_NE(to_markdown(report).find(line + "\n"), std::string::npos);
  const auto json = to_json(report);
  EXPECT_EQ(json["model"]["archive"]["fingerprint"], "0123456789abcdef");
  EXPECT_EQ(json["model"]["archive"]["torch_version"], "2.14.1+cu130");
  EXPECT_EQ(json["model"]["parameters"]["frozen"], 1234);
  EXPECT_EQ(json["model"]["buffers"], 9620);
  EXPECT_EQ(json["model"]["constants"], 12);
  EXPECT_TRUE(to_json(fixed_report())["model"]["archive"].is_null());
}

// Fidelity seeds cannot vary an exported model's initial weights, and its reports say so.
TEST(Renderers, AnExportedModelsFidelitySeedsAreSaidToVaryOnlyDataAndDropout) {
  const std::string said = "the exported model starts every seed from its archive's weights";
  auto report = fixed_report_with_fidelity_seeds();
  EXPECT_EQ(to_console(report).find(said), std::string::npos);
  report.context.archive = ampbench::models::ArchiveIdentity{"0123456789abcdef", "2.14.1"};
  EXPECT_NE(to_console(report).find(said), std::string::npos);
  EXPECT_NE(to_markdown(report).find(said), std::string::npos);
}
TEST(Renderers, SummaryCsv) { expect_snapshot("summary.csv", to_summary_csv(fixed_report())); }
TEST(Renderers, FidelityOverSeedsInEveryFormat) {
  const auto r = fixed_report_with_fidelity_seeds();
  expect_snapshot("fidelity-seeds-console.txt", to_console(r));
  expect_snapshot("fidelity-seeds-report.md", to_markdown(r));
  expect_snapshot("fidelity-seeds-summary.csv", to_summary_csv(r));
  expect_snapshot("fidelity-seeds-report.csv", to_csv(r));
}

TEST(Renderers, TheProfiledPassInEveryFormat) {
  const auto r = fixed_report_with_profile();
  expect_snapshot("profile-console.txt", to_console(r));
  expect_snapshot("profile-report.md", to_markdown(r));
  expect_snapshot("profile.csv", ampbench::profile::to_profile_csv(r.measured.profiles));
  expect_snapshot("profile-report.json", to_json(r).dump(2) + "\n");
}

TEST(Renderers, TheNumericsPassInEveryFormat) {
  const auto r = fixed_report_with_numerics();
  expect_snapshot("numerics-console.txt", to_console(r));
  expect_snapshot("numerics-report.md", to_markdown(r));
  expect_snapshot("numerics.csv", ampbench::report::to_numerics_csv(r.measured.numerics));
  expect_snapshot("numerics-report.json", to_json(r)["numerics"].dump(2) + "\n");
}

// Against a near-zero base (fp32's cast 0.003 ms of a 10 ms step) a ratio says nothing: the tables show
// "-" where fp32's time is under their own row cut-off, while report.json keeps the ratio.
TEST(Renderers, TheProfileTablesShowNoRatioAgainstANearZeroBase) {
  auto r = fixed_report_with_profile();
  auto& fp32 = *r.measured.profiles.at(0).profile;
  for (auto& c : fp32.classes) {
    if (c.op_class == ampbench::profile::OpClass::cast) c.seconds = 0.003e-3;
  }
  std::istringstream console(to_console(r));
  std::string line;
  while (std::getline(console, line) &&
         !(line.rfind("forward", 0) == 0 && line.find(" cast ") != std::string::npos)) {
  }
  EXPECT_EQ(line.find("166.67x"), std::string::npos) << line;
  EXPECT_EQ(line.back(), '-') << line;  // bf16's vs fp32, the last column
  EXPECT_NEAR(to_json(r)["profiles"][1]["classes"][1]["ratio_vs_fp32"].get<double>(), 0.5 / 0.003, 1e-6);
}

TEST(Renderers, JsonFollowsTheSchemaDocument) {
  std::ifstream in(std::filesystem::path(source_dir()) / "docs" / "report.schema.json");
  ASSERT_TRUE(in);
  auto schema = nlohmann::json::parse(in);
  expect_matches_schema(to_json(fixed_report()), schema, "");
  expect_matches_schema(to_json(fixed_report_with_fidelity_seeds()), schema, "");
  expect_matches_schema(to_json(fixed_report_with_profile()), schema, "");
  expect_matches_schema(to_json(fixed_report_with_numerics()), schema, "");
  EXPECT_EQ(schema["properties"]["schema_version"]["const"], kSchemaVersion);
}

TEST(Renderers, SummaryFiguresByHand) {
  auto r = fixed_report();
  ASSERT_EQ(r.summary.size(), 3u);
  // Epoch 2 only: fp32 at 128/1.0 and 128/1.1 samples/s, bf16 at 128/0.5 and 128/0.55: 2x exactly.
  EXPECT_DOUBLE_EQ(*r.summary[1].speedup_vs_fp32, 2.0);
  EXPECT_DOUBLE_EQ(*r.summary[1].memory_ratio_vs_fp32, 0.5);
  EXPECT_NEAR(*r.summary[1].val_loss_delta_vs_fp32, 0.02, 1e-12);
  EXPECT_EQ(r.summary[0].epochs_compared, (std::vector<int64_t>{2}));
  EXPECT_EQ(r.gates[0].passed, true);   // bf16 2x >= 1.5
  EXPECT_EQ(r.gates[1].passed, false);  // fp16 memory 0.75 > 0.5
}
