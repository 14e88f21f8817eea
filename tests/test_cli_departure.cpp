// End to end: --numerics puts each mode's linear layers against an fp32 copy of the model on the same
// batches (numerics[].departures) and, in a block-scaled mode, says what the quantization did to each
// operand; the layer filter keeps layers in bf16; and on the CPU every block-scaled mode is emulated and says
// why.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <map>
#include <set>

#include "cli_fixture.h"
#include "mode_families.h"

namespace ampbench::testing {
namespace {

using json = nlohmann::json;

class Departure : public Cli {
 protected:
  // An MLP whose two hidden layers (layers.0: 128 -> 128, layers.2: 128 -> 128) every block-scaled format
  // takes, and whose head (layers.4: 128 -> 8) none does; batches of 128.
  json config() {
    auto c = tiny_config();
    c["model"]["options"] = {{"width", 128}, {"depth", 2}};
    c["data"]["synthetic"] = {{"train_samples", 512}, {"val_samples", 128}, {"shape", {128}}, {"classes", 8}};
    c["train"]["batch_size"] = 128;
    return c;
  }
  json run_config(const json& c, const std::string& args) {
    const auto result = run("--config " + write_config(c).string() + " -q --numerics 2 " + args);
    EXPECT_EQ(result.exit_code, 0) << result.err;
    const auto folders = run_folders();
    const auto report = json::parse(read_file(folders.back() / "report.json"));
    fs::remove_all(folders.back());
    return report;
  }
  static std::map<std::string, json> by_layer(const json& record) {
    std::map<std::string, json> out;
    for (const auto& layer : record["departures"]) out[layer["layer"]] = layer;
    return out;
  }
};

TEST_F(Departure, EveryModeButFp32IsPutAgainstAnFp32CopyLayerByLayer) {
  const auto report = run_config(config(), "--modes fp32,bf16,mxfp8,nvfp4,fp8-blockwise");
  ASSERT_EQ(report["numerics"].size(), 4u);
  std::map<std::string, double> hidden_error;
  for (const auto& record : report["numerics"]) {
    SCOPED_TRACE(record["mode"].dump());
    const auto layers = by_layer(record);
    ASSERT_EQ(layers.size(), 3u);
    for (const auto& [name, layer] : layers) {
      const double error = layer["output_relative_error"];
      EXPECT_GT(error, 0.0);  // 16, 8 and 4 bits are never fp32
      EXPECT_LT(error, 0.5);
      EXPECT_GT(layer["weight_gradient_cosine"].get<double>(), 0.8);
    }
    hidden_error[record["mode"]] = layers.at("layers.0")["output_relative_error"];
    // Only a block-scaled mode has operands, and only in the layers it took: the first layer's four (no
    // gradient of the model's input is computed, so no grad_output or weight_transposed), the second's six.
    const bool block_scaled = record["mode"] != "bf16";
    EXPECT_EQ(layers.at("layers.0")["operands"].size(), block_scaled ? 4u : 0u);
    EXPECT_EQ(layers.at("layers.2")["operands"].size(), block_scaled ? 6u : 0u);
    EXPECT_TRUE(layers.at("layers.4")["operands"].empty());
    for (const auto& operand : layers.at("layers.2")["operands"]) {
      EXPECT_GT(operand["blocks"].get<int64_t>(), 0);
      EXPECT_GT(operand["relative_error"].get<double>(), 0.0);
    }
  }
  // bf16's 8 significant bits are nearer fp32 than e4m3's 4, which are nearer than e2m1's 2.
  EXPECT_LT(hidden_error["bf16"], hidden_error["mxfp8"]);
  EXPECT_LT(hidden_error["mxfp8"], hidden_error["nvfp4"]);
  // On the CPU every block-scaled mode is emulated: the summary says so and reads no speed-up from it, and
  // the warning says why the kernels were not used.
  std::set<std::string> warned;
  for (const auto& w : report["warnings"]) {
    if (w["kind"] != "emulated") continue;
    warned.insert(w["mode"].get<std::string>());
    EXPECT_NE(
        w["message"].get<std::string>().find("emulated here, since the CPU has no block-scaled kernels:"),
        std::string::npos)
        << w["message"];
  }
  for (const auto& s : report["summary"]) {
    const bool block_scaled = s["mode"] != "fp32" && s["mode"] != "bf16";
    EXPECT_EQ(s["emulated"], block_scaled) << s["mode"];
    EXPECT_EQ(s["speedup_vs_fp32"].is_null(), block_scaled) << s["mode"];
    EXPECT_EQ(warned.contains(s["mode"].get<std::string>()), block_scaled) << s["mode"];
  }
}

// A low-bit layer's activations and gradients are its output and the gradients backward hands on, counted
// once, as a bf16 layer's are: not the product before its bias, nor what feeds a product (a cast operand, a
// rowwise kernel's product before its scales), nor a first layer's input gradient that nothing asked for.
TEST_F(Departure, EveryLowBitModeCountsTheTensorsBf16CountsAtItsLayers) {
  const auto low_bit = low_bit_modes();
  const auto report = run_config(config(), "--modes bf16," + mode_list(low_bit));
  std::map<std::string, std::map<std::string, json>> layers;  // mode -> layer -> ranges
  for (const auto& record : report["numerics"]) {
    for (const auto& layer : record["layers"]) layers[record["mode"]][layer["layer"]] = layer;
  }
  ASSERT_EQ(layers.size(), 1 + low_bit.size()) << "a mode without its numerics record";
  const auto& bf16 = layers.at("bf16");
  ASSERT_TRUE(bf16.contains("layers.0") && bf16.contains("layers.2"));
  for (const auto& [mode, by_layer] : layers) {
    for (const auto& [name, reference] : bf16) {
      SCOPED_TRACE(mode + " " + name);
      ASSERT_TRUE(by_layer.contains(name));
      const auto& ours = by_layer.at(name);
      for (const char* kind : {"activations", "gradients"})
        EXPECT_EQ(ours[kind]["elements"], reference[kind]["elements"]) << kind;
      const auto largest = reference["gradients"]["largest"];
      if (!largest.is_number()) continue;
      // Within the formats' rounding of bf16's, not a product before its scales (bf16's x 10^5 here).
      EXPECT_LT(ours["gradients"]["largest"].get<double>(), 2 * largest.get<double>());
      EXPECT_GT(ours["gradients"]["largest"].get<double>(), 0.5 * largest.get<double>());
    }
  }
}

// A filter that keeps every layer in bf16 leaves mxfp8 bf16 itself: the same departures, bit for bit, and
// no operand quantized; keeping the first layer only changes that layer's operands.
TEST_F(Departure, TheLayerFilterKeepsLayersInBf16AndTheirDeparturesAreBf16s) {
  auto c = config();
  c["precision"]["layer_filter"] = {{"min_features", 1000}};
  const auto all_kept = run_config(c, "--modes fp32,bf16,mxfp8");
  const auto bf16 = by_layer(all_kept["numerics"][0]), mxfp8 = by_layer(all_kept["numerics"][1]);
  for (const auto& [name, layer] : bf16) {
    EXPECT_EQ(mxfp8.at(name)["output_relative_error"], layer["output_relative_error"]) << name;
    EXPECT_TRUE(mxfp8.at(name)["operands"].empty()) << name;
  }
  for (const auto& layer : all_kept["trials"][2]["float8"]["layers"]) {
    EXPECT_EQ(layer["float8_calls"], 0);
    EXPECT_EQ(layer["bf16_why"], "kept in bf16 by precision.layer_filter");
  }
  c["precision"]["layer_filter"] = {{"keep_first", 1}};
  const auto first_kept = run_config(c, "--modes fp32,mxfp8");
  const auto layers = by_layer(first_kept["numerics"][0]);
  EXPECT_TRUE(layers.at("layers.0")["operands"].empty());
  EXPECT_EQ(layers.at("layers.2")["operands"].size(), 6u);
}

}  // namespace
}  // namespace ampbench::testing
