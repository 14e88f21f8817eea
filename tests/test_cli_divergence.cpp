// End to end: a diverged trial's replay names the first op that made inf or NaN (docs/numerics.md), for
// planted failures whose op, step and place are known.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_fixture.h"
#include "export_fixture.h"
#include "mode_families.h"

namespace ampbench::testing {
namespace {

class Divergence : public Cli {
 protected:
  // The tiny config (ampbench's mlp of depth 1: layers.0 linear, layers.1 ReLU, layers.2 linear; 4 steps an
  // epoch) in `modes` with a planted fault; the report's trial of `mode`.
  json trial_with(const std::string& fault, const std::string& modes, const std::string& mode,
                  json config = json()) {
    if (config.is_null()) config = tiny_config();
    last_ = run("--config " + write_config(config).string() + " -q --modes " + modes + " --epochs 2" +
                (fault.empty() ? "" : " --inject-fault " + fault));
    EXPECT_EQ(last_.exit_code, 0) << last_.err;
    report_ = json::parse(read_file(run_folders().at(0) / "report.json"));
    EXPECT_EQ(report_["schema_version"], report::kSchemaVersion);
    for (const auto& trial : report_["trials"]) {
      if (trial["mode"] == mode) return trial;
    }
    ADD_FAILURE() << "no " << mode << " trial";
    return json();
  }
  Result last_;
  json report_;
};

TEST_F(Divergence, AnFp16OverflowIsTracedToTheLayerWhoseOutputPassed65504) {
  // From step 3 the last layer's weights reach 60000: finite in fp16, their products with the activations
  // are not.
  const auto fp16 = trial_with("overflow:fp16:3", "fp32,fp16", "fp16");
  ASSERT_EQ(fp16["status"], "diverged");
  ASSERT_EQ(fp16["stopped_at_step"], 3);
  const auto& d = fp16["divergence"];
  EXPECT_TRUE(d["reproduced"].get<bool>()) << d.dump(2);
  ASSERT_EQ(d["steps"].size(), 1u) << d.dump(2);
  const auto& step = d["steps"][0];
  EXPECT_EQ(step["step"], 3);
  EXPECT_EQ(step["event"], "non-finite loss");
  const auto& op = step["first_op"];
  ASSERT_TRUE(op.is_object()) << d.dump(2);
  EXPECT_EQ(op["op"], "aten::addmm");
  EXPECT_EQ(op["phase"], "forward");
  EXPECT_EQ(op["module"], "layers.2");
  EXPECT_TRUE(op["in_module"].get<bool>());
  EXPECT_EQ(op["made"], "inf");
  EXPECT_EQ(op["format_max"], 65504.0);
  EXPECT_EQ(op["outputs"][0]["dtype"], "fp16");
  EXPECT_EQ(op["outputs"][0]["shape"], json({16, 4}));
  // The inputs were finite in fp16: the sum overflowed, not a cast.
  EXPECT_LE(op["largest_finite_input"].get<double>(), 65504.0);
  EXPECT_GE(op["largest_finite_input"].get<double>(), 59000.0);
  EXPECT_NE(last_.out.find("where the numbers went wrong: fp16 trial 1"), std::string::npos) << last_.out;
  const auto markdown = read_file(run_folders().at(0) / "report.md");
  EXPECT_NE(markdown.find("**Where the numbers went wrong**"), std::string::npos);
  EXPECT_NE(markdown.find("aten::addmm made inf (forward, in layers.2)"), std::string::npos) << markdown;
  // The fp32 trial beside it never diverged and has no diagnosis.
  EXPECT_EQ(report_["trials"][0]["mode"], "fp32");
  EXPECT_TRUE(report_["trials"][0]["divergence"].is_null());
}

TEST_F(Divergence, ANaNMadeInABackwardOpIsFoundAtItsStepBeforeTheLossShowsIt) {
  // bf16 has no GradScaler: the NaN gradient of step 3 reaches the weights, and the loss of step 4.
  const auto bf16 = trial_with("nangrad:bf16:3", "fp32,bf16", "bf16");
  ASSERT_EQ(bf16["stopped_at_step"], 4);
  const auto& d = bf16["divergence"];
  EXPECT_TRUE(d["reproduced"].get<bool>()) << d.dump(2);
  ASSERT_EQ(d["steps"].size(), 1u);
  EXPECT_EQ(d["steps"][0]["step"], 3);
  EXPECT_EQ(d["steps"][0]["event"], "non-finite gradients");
  const auto& op = d["steps"][0]["first_op"];
  ASSERT_TRUE(op.is_object()) << d.dump(2);
  EXPECT_EQ(op["phase"], "backward");
  EXPECT_EQ(op["backward_node"], "SqrtBackward0");
  EXPECT_EQ(op["op"], "aten::div");  // sqrt's backward: grad / (2 * result), 0 / 0 here
  EXPECT_EQ(op["made"], "NaN");
}

TEST_F(Divergence, AFailureTheReplayDoesNotRepeatIsReportedNotReproducedAndNamesNoOp) {
  const auto bf16 = trial_with("flaky:bf16:3", "fp32,bf16", "bf16");
  ASSERT_EQ(bf16["status"], "diverged");
  const auto& d = bf16["divergence"];
  EXPECT_FALSE(d["reproduced"].get<bool>());
  EXPECT_EQ(d["replay_saw"], "the loss stayed finite through step 3");
  EXPECT_TRUE(d["steps"].empty());
  EXPECT_NE(last_.out.find("NOT reproduced: the loss stayed finite through step 3"), std::string::npos)
      << last_.out;
}

TEST_F(Divergence, Fp16SkippingStepInARowIsTracedToTheGradientThatOverflowed) {
  // A loss scale of 1e38 overflows fp16's gradients for many steps while it backs off: every step skipped.
  auto config = tiny_config();
  config["precision"] = {{"grad_scaler", {{"init_scale", 1e38}}}};
  const auto fp16 = trial_with("", "fp16", "fp16", config);
  ASSERT_EQ(fp16["status"], "ok");
  const auto& d = fp16["divergence"];
  ASSERT_TRUE(d.is_object()) << fp16.dump(2);
  EXPECT_EQ(d["trigger"], "8 optimizer steps skipped in a row from step 1");
  EXPECT_TRUE(d["reproduced"].get<bool>()) << d.dump(2);
  ASSERT_EQ(d["steps"].size(), 1u);
  EXPECT_EQ(d["steps"][0]["event"], "skipped step");
  EXPECT_TRUE(d["steps"][0]["seen_again"].get<bool>());
  const auto& op = d["steps"][0]["first_op"];
  ASSERT_TRUE(op.is_object()) << d.dump(2);
  EXPECT_EQ(op["phase"], "backward");
  EXPECT_EQ(op["made"], "inf");
  EXPECT_EQ(op["format_max"], 65504.0);  // an fp16 gradient, not the fp32 scaled loss
}

TEST_F(Divergence, AnExportedModelsOpIsNamedByItsGraphNode) {
  constexpr int64_t kFeatures = 48, kWidth = 64, kClasses = 4;
  const auto archive = dir_ / "model.pt2";
  write_two_linear_program(archive, kFeatures, kWidth, kClasses);
  auto config = tiny_config();
  config["model"] = {{"type", "exported"}, {"options", {{"path", archive.string()}}}};
  config["data"]["synthetic"]["shape"] = {kFeatures};
  const auto fp16 = trial_with("overflow:fp16:2", "fp32,fp16", "fp16", config);
  ASSERT_EQ(fp16["status"], "diverged");
  // Its large activations may make fp16 skip earlier steps too; the planted step is the one diverged.
  json op;
  for (const auto& step : fp16["divergence"]["steps"]) {
    if (step["step"] == 2) op = step["first_op"];
  }
  ASSERT_TRUE(op.is_object()) << fp16["divergence"].dump(2);
  EXPECT_EQ(op["node"], "scores");
  EXPECT_EQ(op["phase"], "forward");
  EXPECT_EQ(op["made"], "inf");
}

// A natural divergence (SGD at lr 1e5) in every low-bit mode of the table: each trial is diagnosed with the
// op that made inf or NaN, and nothing LibTorch prints reaches the terminal as a C++ stack (its isfinite and
// isinf refuse the float8 tensors these modes make, which the observer reads as fp32).
TEST_F(Divergence, ANaturalDivergenceInEveryLowBitModeNamesItsOpWithoutAStack) {
  auto config = tiny_config();
  config["model"]["options"] = {{"width", 32}, {"depth", 2}};  // 48 -> 32 -> 32 -> 16: the formats' sizes
  config["data"]["synthetic"]["classes"] = 16;
  config["train"]["optimizer"] = {{"type", "sgd"}, {"lr", 1e5}, {"momentum", 0.0}, {"weight_decay", 0.0}};
  const auto modes = low_bit_modes();
  const auto result =
      run("--config " + write_config(config).string() + " -q --epochs 1 --modes " + mode_list(modes));
  EXPECT_EQ(result.exit_code, 4) << result.err.substr(0, 2000);  // no trial finished: every one diverged
  EXPECT_EQ(result.err.find("frame #"), std::string::npos) << result.err.substr(0, 2000);
  EXPECT_EQ(result.err.find("Exception in RecordFunction callback"), std::string::npos)
      << result.err.substr(0, 2000);
  const auto report = json::parse(read_file(run_folders().at(0) / "report.json"));
  ASSERT_EQ(report["trials"].size(), modes.size());
  for (const auto& trial : report["trials"]) {
    SCOPED_TRACE(trial["mode"].dump());
    EXPECT_EQ(trial["status"], "diverged");
    const auto& d = trial["divergence"];
    ASSERT_TRUE(d.is_object() && !d["steps"].empty()) << trial.dump(2);
    const auto& op = d["steps"][0]["first_op"];
    ASSERT_TRUE(op.is_object()) << d.dump(2);
    // A low-bit layer's product is named as the layer's op, never as an op inside it placed after the layer.
    if (op["phase"] == "forward") {
      EXPECT_TRUE(op["in_module"].get<bool>()) << op.dump(2);
    }
  }
}

// The same planted fault (a NaN made by a square root's backward at the loss) is named in every low-bit
// mode where it was planted, whatever the format's machinery makes of the NaN after it.
TEST_F(Divergence, APlantedNaNIsNamedWhereItWasPlantedInEveryLowBitMode) {
  auto config = tiny_config();
  config["model"]["options"] = {{"width", 32}, {"depth", 2}};
  config["data"]["synthetic"]["classes"] = 16;
  for (auto mode : low_bit_modes()) {
    const std::string name(amp::to_string(mode));
    SCOPED_TRACE(name);
    const auto trial = trial_with("nangrad:" + name + ":3", "fp32," + name, name, config);
    fs::remove_all(run_folders().at(0));
    const auto& d = trial["divergence"];
    ASSERT_TRUE(d.is_object() && !d["steps"].empty()) << trial.dump(2);
    EXPECT_EQ(d["steps"][0]["step"], 3);
    const auto& op = d["steps"][0]["first_op"];
    ASSERT_TRUE(op.is_object()) << d.dump(2);
    EXPECT_EQ(op["backward_node"], "SqrtBackward0");
    EXPECT_EQ(op["op"], "aten::div");
    EXPECT_EQ(op["made"], "NaN");
  }
}

}  // namespace
}  // namespace ampbench::testing
