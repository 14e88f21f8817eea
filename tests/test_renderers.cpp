// Snapshot tests: every renderer on one fixed report, compared with the files in tests/snapshots/.
// After an intended change, regenerate them with AMPBENCH_UPDATE_SNAPSHOTS=1 and review the diff.
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "report/console_report.h"
#include "report/csv_report.h"
#include "report/gates.h"
#include "report/json_report.h"
#include "report/markdown_report.h"
#include "report/summary.h"
#include "report/warnings.h"

using namespace ampbench::report;
using ampbench::amp::PrecisionMode;

namespace {

TrialRecord trial(PrecisionMode mode, int64_t number, double seconds_per_epoch, int64_t peak,
                  double val_loss) {
  TrialRecord t;
  t.mode = mode;
  t.trial = number;
  t.memory = {"cpu-tracking-allocator", 1 << 20, peak << 20, std::nullopt, 1000 << 20};
  t.initial_weights_checksum = "00000000000000aa";
  t.data_order_checksum = "00000000000000bb";
  for (int64_t epoch = 1; epoch <= 2; ++epoch) {
    EpochRecord e;
    e.epoch = epoch;
    e.seconds = seconds_per_epoch * (epoch == 1 ? 1.5 : 1.0);
    e.timed_steps = 4;
    e.timed_samples = 128;
    e.samples_per_second = 128 / e.seconds;
    e.train_loss = 1.0 / double(epoch);
    e.val_loss = val_loss + 0.25 * double(2 - epoch);
    e.val_accuracy = 0.5;
    e.step_seconds = {e.seconds / 4, e.seconds / 4, e.seconds / 4, e.seconds / 4};
    if (mode == PrecisionMode::fp16) {
      e.loss_scale = 32768;
      e.skipped_steps = 1;
    }
    t.epochs.push_back(e);
  }
  if (mode == PrecisionMode::fp16) {
    // Trial 2's scale collapses: six back-offs in a row.
    t.loss_scale_trace = LossScaleTrace{{3}, {{3, 32768.0}}, 32768.0, 1};
    if (number == 2) t.loss_scale_trace = LossScaleTrace{{1, 2, 3, 4, 5, 6}, {{6, 1024.0}}, 1024.0, 6};
  }
  return t;
}

RunReport fixed_report() {
  RunReport r;
  r.config = {
      {"name", "snapshot"}, {"model", {{"type", "mlp"}}}, {"precision", {{"fidelity_tolerance", 0.015}}}};
  auto& env = r.environment;
  env.ampbench_version = "0.1.0";
  env.git_commit = "0123456789ab";
  env.build_type = "Release";
  env.compiler = "gcc 12.2.0";
  env.libtorch_version = "2.13.0";
  env.device = "cpu";
  env.device_name = env.cpu_model = "Test CPU";
  env.cpu_cores = 2;
  env.torch_threads = 2;
  env.host_malloc = "default";
  env.hostname = "host";
  env.config_hash = "00000000deadbeef";
  env.seed = 0;
  env.timestamp_utc = "2026-01-01T00:00:00Z";
  r.trials = {
      trial(PrecisionMode::fp32, 1, 1.0, 4000, 1.0),   trial(PrecisionMode::bf16, 1, 0.5, 2000, 1.02),
      trial(PrecisionMode::fp16, 1, 0.25, 3000, 1.01), trial(PrecisionMode::fp32, 2, 1.1, 4000, 1.0),
      trial(PrecisionMode::bf16, 2, 0.55, 2000, 1.02), trial(PrecisionMode::fp16, 2, 0.26, 3000, 1.01)};
  TrialRecord skipped;
  skipped.mode = PrecisionMode::tf32;
  skipped.status = "skipped";
  skipped.detail = "TF32 is a format of NVIDIA tensor cores, which this device lacks";
  r.trials.insert(r.trials.begin() + 1, skipped);
  r.grad_cosine_vs_fp32 = {{PrecisionMode::bf16, 0.9991}, {PrecisionMode::fp16, 0.99999}};
  r.train_flops_per_sample = 6.0e9;
  // A peak for fp16 only: the other modes get no MFU (empty, not 0).
  r.summary = summarize(
      r.trials, {0.015, r.grad_cosine_vs_fp32, r.train_flops_per_sample, {{PrecisionMode::fp16, 10.0}}});
  r.warnings = find_warnings(r);
  Gates gates;
  gates.min_speedup[PrecisionMode::bf16] = 1.5;
  gates.max_memory_ratio[PrecisionMode::fp16] = 0.5;
  r.gates = check_gates(gates, r.summary);
  r.complete = true;
  return r;
}

void expect_snapshot(const std::string& name, const std::string& actual) {
  auto path = std::filesystem::path(AMPBENCH_SOURCE_DIR) / "tests" / "snapshots" / name;
  if (std::getenv("AMPBENCH_UPDATE_SNAPSHOTS")) {
    std::ofstream(path) << actual;
    return;
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

TEST(Renderers, JsonFollowsTheSchemaDocument) {
  std::ifstream in(std::filesystem::path(AMPBENCH_SOURCE_DIR) / "docs" / "report.schema.json");
  ASSERT_TRUE(in);
  auto schema = nlohmann::json::parse(in);
  expect_matches_schema(to_json(fixed_report()), schema, "");
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

TEST(Warnings, FewRepeatsHighCvOutliersAndDebugBuilds) {
  auto r = fixed_report();
  auto kinds = [](const std::vector<Warning>& ws) {
    std::vector<std::string> out;
    for (const auto& w : ws) out.push_back(w.kind);
    return out;
  };
  // fp16's trial 2 backs off six times in a row; tf32 was skipped; two trials per mode: too few for a
  // verdict; fp32 varies by 1.0 vs 1.1 s: a CV above 5 %.
  EXPECT_EQ(kinds(r.warnings),
            (std::vector<std::string>{"scale_collapse", "skipped", "few_repeats", "high_cv", "high_cv"}));
  const auto few = std::find_if(r.warnings.begin(), r.warnings.end(),
                                [](const Warning& w) { return w.kind == "few_repeats"; });
  // One line for the run, every mode with the same count named in it, in summary order.
  ASSERT_NE(few, r.warnings.end());
  EXPECT_EQ(few->message, "fp32, bf16, fp16: 2 trial(s) each: too few for a speed-up verdict");
  EXPECT_FALSE(few->mode.has_value());
  r.environment.build_type = "Debug";
  r.trials.push_back(trial(PrecisionMode::fp32, 3, 1.0, 4000, 1.0));
  r.trials.push_back(trial(PrecisionMode::fp32, 4, 1.05, 4000, 1.0));
  r.trials.push_back(trial(PrecisionMode::fp32, 5, 3.0, 4000, 1.0));  // an outlier
  r.summary = summarize(r.trials);
  auto warnings = find_warnings(r);
  EXPECT_EQ(warnings.front().kind, "debug_build");
  bool outlier = false;
  for (const auto& w : warnings) {
    if (w.kind != "outlier") continue;
    outlier |= w.message.find("trial 5, epoch 2") != std::string::npos;
    EXPECT_NE(w.message.find("far slower than the mode's median"), std::string::npos) << w.message;
  }
  EXPECT_TRUE(outlier);
}

TEST(Warnings, AModeWithFewerTrialsThanTheOthersHasAFewRepeatsLineOfItsOwn) {
  RunReport r;
  r.environment.build_type = "Release";
  r.data_on_device = true;
  for (int t = 1; t <= 2; ++t) {
    r.trials.push_back(trial(PrecisionMode::fp32, t, 1.0, 4000, 1.0));
    r.trials.push_back(trial(PrecisionMode::bf16, t, 1.0, 4000, 1.0));
  }
  r.trials.push_back(trial(PrecisionMode::fp16, 1, 1.0, 4000, 1.0));  // as if its second trial was lost
  r.config = {{"repeats", 2}};
  r.summary = summarize(r.trials);
  std::vector<std::string> few;
  for (const auto& w : find_warnings(r)) {
    if (w.kind != "few_repeats") continue;
    few.push_back(w.message + "; " + w.advice);
    EXPECT_EQ(w.mode.has_value(), w.message.rfind("fp16: ", 0) == 0) << w.message;
  }
  EXPECT_EQ(few,
            (std::vector<std::string>{
                "fp16: 1 of 2 trial(s): too few for a speed-up verdict, and no uncertainty interval; the "
                "others ended early (see their warnings): fix what stopped them and rerun",
                "fp32, bf16: 2 trial(s) each: too few for a speed-up verdict; set \"repeats\" to 3 or more "
                "(5 or more for a tighter interval); trials are interleaved across modes"}));
}

TEST(Warnings, AnEpochFarFasterThanTheRestIsSaidToBeFaster) {
  RunReport r;
  r.environment.build_type = "Release";
  r.data_on_device = true;
  for (int t = 1; t <= 5; ++t)
    r.trials.push_back(trial(PrecisionMode::fp32, t, t == 3 ? 0.3 : 1.0 + 0.01 * t, 4000, 1.0));
  r.summary = summarize(r.trials);
  std::vector<std::string> outliers;
  for (const auto& w : find_warnings(r)) {
    if (w.kind == "outlier") outliers.push_back(w.message + " / " + w.advice);
  }
  ASSERT_EQ(outliers.size(), 1u);
  EXPECT_NE(outliers[0].find("trial 3, epoch 2 took 0.300 s, far faster than the mode's median"),
            std::string::npos)
      << outliers[0];
  EXPECT_NE(outliers[0].find("during the other epochs"), std::string::npos) << outliers[0];
}

TEST(Warnings, AScaleCollapseIsALongRunOfBackOffsOrAScaleBelowOne) {
  auto warnings_for = [](LossScaleTrace trace) {
    RunReport r;
    r.environment.build_type = "Release";
    TrialRecord t;
    t.mode = PrecisionMode::fp16;
    t.status = "interrupted";  // no summary needed: the trace alone decides
    t.loss_scale_trace = trace;
    r.trials.push_back(t);
    int collapses = 0;
    for (const auto& w : find_warnings(r)) collapses += w.kind == "scale_collapse";
    return collapses;
  };
  EXPECT_EQ(warnings_for({{1, 2, 3, 4}, {{4, 4096.0}}, 4096.0, 4}), 0);  // the usual start: finding its level
  EXPECT_EQ(warnings_for({{1, 2, 3, 4, 5}, {{5, 2048.0}}, 2048.0, kScaleCollapseRun}), 1);
  EXPECT_EQ(warnings_for({{9}, {{9, 0.5}}, 0.5, 1}), 1);  // under the floor
}

TEST(Warnings, AModeCaveatIsFlaggedWithItsKindAndAdvice) {
  RunReport r;
  r.environment.build_type = "Release";
  r.mode_caveats[PrecisionMode::fp16] = {"no_tensor_cores", "no tensor cores", "use a newer GPU"};
  r.mode_caveats[PrecisionMode::bf16] = {"no_16bit_arithmetic", "no bf16 arithmetic", "use AMX"};
  auto warnings = find_warnings(r);
  ASSERT_EQ(warnings.size(), 2u);
  EXPECT_EQ(warnings[0].kind, "no_tensor_cores");
  EXPECT_EQ(warnings[0].mode, PrecisionMode::fp16);
  EXPECT_EQ(warnings[0].message, "fp16: no tensor cores");
  EXPECT_EQ(warnings[0].advice, "use a newer GPU");
  EXPECT_EQ(warnings[1].kind, "no_16bit_arithmetic");
  EXPECT_EQ(warnings[1].mode, PrecisionMode::bf16);
}
