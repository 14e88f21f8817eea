// End to end: --numerics measures, per 16-bit mode, how close its activations, gradients and updates ran to
// the format's limits (docs/numerics.md), in report.json, numerics.csv, report.md and the console.
#include <cmath>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_fixture.h"
#include "export_fixture.h"

namespace ampbench::testing {
namespace {

using json = nlohmann::json;

TEST_F(Cli, NumericsStepsDefaultToFourAndABadCountIsRefused) {
  const auto config = write_config(tiny_config()).string();
  EXPECT_EQ(json::parse(run("--config " + config + " --dry-run --numerics").out)["numerics"]["steps"], 4);
  EXPECT_FALSE(json::parse(run("--config " + config + " --dry-run").out).contains("numerics"));
  expect_refused(config, "--numerics 0", "--numerics");
  expect_refused(config, "--numerics 10001", "--numerics");
}

class Numerics : public Cli {
 protected:
  // The tiny config (mlp: layers.0 linear 48 -> 16, ReLU, layers.2 linear 16 -> 4; batches of 16, 4 steps an
  // epoch, 2 epochs) with `args`; its report.json.
  json run_tiny(const std::string& args, json config = json()) {
    if (config.is_null()) config = tiny_config();
    last_ = run("--config " + write_config(config).string() + " " + args);
    EXPECT_EQ(last_.exit_code, 0) << last_.err;
    folder_ = run_folders().at(0);
    return json::parse(read_file(folder_ / "report.json"));
  }
  Result last_;
  fs::path folder_;
};

const json* layer_named(const json& record, const std::string& name) {
  for (const auto& layer : record["layers"]) {
    if (layer["layer"] == name) return &layer;
  }
  return nullptr;
}

TEST_F(Numerics, EachSixteenBitModeIsMeasuredAtTheSampledStepsLayerByLayer) {
  const auto report = run_tiny("-q --modes fp32,fp16,bf16,bf16-pure --numerics 3");
  ASSERT_EQ(report["numerics"].size(), 3u) << report["numerics"].dump(1);  // fp32 has no 16-bit format
  const char* modes[] = {"fp16", "bf16", "bf16-pure"};
  for (size_t m = 0; m < 3; ++m) {
    const auto& record = report["numerics"][m];
    SCOPED_TRACE(modes[m]);
    EXPECT_EQ(record["mode"], modes[m]);
    EXPECT_EQ(record["failure"], nullptr);
    EXPECT_EQ(record["format"], m == 0 ? "fp16" : "bf16");
    EXPECT_EQ(record["format_largest"], m == 0 ? 65504.0 : 3.3895313892515355e38);
    ASSERT_EQ(record["steps"], json({3, 6, 8}));  // 3 of the run's 8 optimizer steps, evenly spread
    EXPECT_EQ(record["loss_scales"].size(), m == 0 ? 3u : 0u);
    // Each sampled step runs layers.0 forward once on a [16, 16] output, and backward through it.
    const auto* first = layer_named(record, "layers.0");
    ASSERT_NE(first, nullptr) << record["layers"].dump(1);
    EXPECT_EQ((*first)["activations"]["elements"], 3 * 16 * 16);
    EXPECT_GT((*first)["gradients"]["elements"], 0);
    for (const auto& layer : record["layers"]) {
      for (const char* direction : {"activations", "gradients"}) {
        const auto& figures = layer[direction];
        if (figures["elements"] == 0) continue;
        const double largest = figures["largest"];
        EXPECT_LE(largest, record["format_largest"].get<double>());
        if (largest > 0) {
          EXPECT_NEAR(figures["headroom_binades"].get<double>(),
                      std::log2(record["format_largest"].get<double>() / largest), 1e-9);
        }
      }
    }
    // Per parameter: the parameter's elements at each sampled step, and what its update did.
    ASSERT_EQ(record["parameters"].size(), 4u);
    EXPECT_EQ(record["parameters"][0]["name"], "layers.0.weight");
    EXPECT_EQ(record["parameters"][0]["elements"], 3 * 16 * 48);
    for (const auto& parameter : record["parameters"]) {
      EXPECT_GT(parameter["gradient"]["nonzero"], 0);
      EXPECT_GT(parameter["update"]["changed"], 0) << parameter.dump();
      EXPECT_GT(parameter["update"]["ratio_to_weight"], 0.0);
      // Pure bf16 stores its weights in bf16: its lost updates are the audit's, not a what-if.
      EXPECT_EQ(parameter["update"]["lost_in_format"].is_null(), m == 2) << parameter.dump();
    }
  }
  // numerics.csv: a row per layer and per parameter of each mode.
  std::istringstream csv(read_file(folder_ / "numerics.csv"));
  std::string line;
  size_t rows = 0;
  std::getline(csv, line);
  EXPECT_EQ(line.substr(0, 20), "mode,format,row,name");
  while (std::getline(csv, line)) ++rows;
  size_t expected = 0;
  for (const auto& record : report["numerics"])
    expected += record["layers"].size() + record["parameters"].size();
  EXPECT_EQ(rows, expected);
  const auto markdown = read_file(folder_ / "report.md");
  EXPECT_NE(markdown.find("**How close the numbers ran to their format's limits**"), std::string::npos);
  EXPECT_NE(markdown.find("| fp16 | layers.0.weight |"), std::string::npos) << markdown;
}

TEST_F(Numerics, TheConsoleNamesTheLayersNearestToALimit) {
  run_tiny("--modes fp16 --numerics 2");
  EXPECT_NE(
      last_.out.find("numerics: fp16 (fp16) at steps 4, 8, loss scale 65536: least headroom: activations "
                     "layers."),
      std::string::npos)
      << last_.out;
  EXPECT_NE(last_.out.find("without the loss scale"), std::string::npos) << last_.out;
}

TEST_F(Numerics, ALossScaleTooLowMakesTheGradientsUnderflowThatItWouldOtherwiseKeep) {
  auto config = tiny_config();
  config["precision"] = {
      {"modes", {"fp16"}},
      {"grad_scaler", {{"init_scale", std::ldexp(1.0, -16)}, {"growth_interval", 1000000}}}};
  const auto report = run_tiny("-q --numerics 2", config);
  const auto& record = report["numerics"].at(0);
  EXPECT_EQ(record["loss_scales"], json({std::ldexp(1.0, -16), std::ldexp(1.0, -16)}));
  // At 2^-16 the fp16 gradients backward kept lie below fp16's smallest normal; divided by the scale, almost
  // none would.
  int64_t nonzero = 0, subnormal = 0, underflow_unscaled = 0;
  for (const auto& layer : record["layers"]) {
    const auto& gradients = layer["gradients"];
    nonzero += gradients["nonzero"].get<int64_t>();
    subnormal += gradients["subnormal"].get<int64_t>();
    underflow_unscaled +=
        gradients["unscaled"]["flushed"].get<int64_t>() + gradients["unscaled"]["subnormal"].get<int64_t>();
  }
  ASSERT_GT(nonzero, 0);
  EXPECT_GT(double(subnormal), 0.9 * double(nonzero));
  EXPECT_LT(double(underflow_unscaled), 0.05 * double(nonzero));
  for (const auto& parameter : record["parameters"]) {
    SCOPED_TRACE(parameter["name"].get<std::string>());
    const auto& gradient = parameter["gradient"];
    EXPECT_NEAR(gradient["largest_at_scale"].get<double>(),
                gradient["largest"].get<double>() * std::ldexp(1.0, -16),
                gradient["largest_at_scale"].get<double>() * 1e-6);
  }
}

TEST_F(Numerics, AnExportedModelsLayersAreItsGraphNodes) {
  constexpr int64_t kFeatures = 48, kWidth = 64, kClasses = 4;
  const auto archive = dir_ / "model.pt2";
  write_two_linear_program(archive, kFeatures, kWidth, kClasses);
  auto config = tiny_config();
  config["model"] = {{"type", "exported"}, {"options", {{"path", archive.string()}}}};
  config["data"]["synthetic"]["shape"] = {kFeatures};
  // A loss scale no step's gradients overflow on any CPU: both sampled steps are compared.
  config["precision"] = {{"grad_scaler", {{"init_scale", 1024}}}};
  const auto report = run_tiny("-q --modes fp16 --numerics 2", config);
  const auto& record = report["numerics"].at(0);
  // Each linear node's [16, width] output, forward, at both sampled steps.
  const auto* hidden = layer_named(record, "hidden");
  ASSERT_NE(hidden, nullptr) << record["layers"].dump(1);
  EXPECT_EQ((*hidden)["activations"]["elements"], 2 * 16 * kWidth);
  const auto* scores = layer_named(record, "scores");
  ASSERT_NE(scores, nullptr) << record["layers"].dump(1);
  EXPECT_EQ((*scores)["activations"]["elements"], 2 * 16 * kClasses);
  EXPECT_GT((*scores)["gradients"]["elements"], 0);
  ASSERT_EQ(record["parameters"].size(), 4u);
  EXPECT_EQ(record["parameters"][0]["name"], "body.weight");
  // Each node's weight is a parameter of the program: its gradient is put against fp32's.
  ASSERT_EQ(record["departures"].size(), 2u);
  for (const auto& layer : record["departures"]) {
    SCOPED_TRACE(layer.dump());
    ASSERT_TRUE(layer["weight_gradient_cosine"].is_number());
    EXPECT_GT(layer["weight_gradient_cosine"].get<double>(), 0.99);
  }
}

}  // namespace
}  // namespace ampbench::testing

namespace ampbench::testing {
namespace {

// The batch is cut and cast before the forward phase is marked (its own phase, batch): after an accumulation
// micro-step no observer counts the inputs as some layer's gradients or activations.
TEST_F(Numerics, TheInputBatchIsNoLayersValuesAfterAnAccumulationMicroStep) {
  auto config = tiny_config();
  config["train"]["accumulation_steps"] = 2;
  const auto report = run_tiny("-q --modes fp32,bf16-pure --numerics 2", config);
  ASSERT_EQ(report["numerics"].size(), 1u);
  for (const auto& layer : report["numerics"][0]["layers"]) {
    EXPECT_NE(layer["layer"], "(other)") << layer.dump();
    EXPECT_NE(layer["layer"], "(input)") << layer.dump();
  }
}

// A pure bf16 trial that diverges: its audit stops where it diverged, and the report keeps to its schema (the
// fixture validates every report a test leaves).
TEST_F(Numerics, ADivergedPureBf16TrialsAuditStopsThereAndTheReportKeepsToItsSchema) {
  auto config = tiny_config();
  config["train"]["optimizer"] = {{"type", "sgd"}, {"lr", 1e6}};
  const auto result = run("--config " + write_config(config).string() + " -q --modes fp32,bf16-pure");
  const auto report = json::parse(read_file(run_folders().at(0) / "report.json"));
  ASSERT_EQ(report["trials"][1]["status"], "diverged") << result.err;
  const auto& audit = report["update_audits"][0];
  ASSERT_TRUE(audit["diverged_at_step"].is_number()) << audit.dump();
  for (const auto& step : audit["steps"])
    EXPECT_LT(step.get<int64_t>(), audit["diverged_at_step"].get<int64_t>());
}

}  // namespace
}  // namespace ampbench::testing
