// benchmarks/graph_runner_overhead end to end, on an archive of ampbench's own MLP planted as torch.export
// writes one (export_fixture.h), so no Python is needed: its table, and its refusals of two models or configs
// it cannot pair.
#include <regex>

#include "cli_fixture.h"
#include "export_fixture.h"

namespace ampbench::testing {
namespace {

constexpr int64_t kFeatures = 4, kWidth = 8, kClasses = 3;

class GraphRunnerOverhead : public Cli {
 protected:
  // ampbench's `mlp` of depth 1 (layers.0 linear, layers.1 ReLU, layers.2 linear) as torch.export writes
  // it; `first_layer` renames the first linear's state, `width` sizes its output.
  void plant_mlp(const fs::path& path, const std::string& first_layer = "layers.0", int64_t width = kWidth) {
    const auto sizes = [](int64_t columns) { return std::vector<json>{batch_size(2), static_size(columns)}; };
    ProgramBuilder b;
    std::vector<std::string> inputs;
    for (const auto& [name, in, out] :
         {std::tuple{first_layer, kFeatures, width}, std::tuple{std::string("layers.2"), width, kClasses}}) {
      inputs.push_back(b.state(name + ".weight", torch::randn({out, in}), true));
      inputs.push_back(b.state(name + ".bias", torch::randn({out}), true));
    }
    b.user_input("x", sizes(kFeatures));
    const std::string linear = "torch.ops.aten.linear.default";
    b.node(linear,
           {{"input", tensor_argument("x")},
            {"weight", tensor_argument(inputs[0])},
            {"bias", tensor_argument(inputs[1])}},
           "linear", sizes(width));
    b.node("torch.ops.aten.relu_.default", {{"self", tensor_argument("linear")}}, "relu", sizes(width));
    b.node(linear,
           {{"input", tensor_argument("relu")},
            {"weight", tensor_argument(inputs[2])},
            {"bias", tensor_argument(inputs[3])}},
           "linear_1", sizes(kClasses));
    b.output("linear_1");
    b.write(path);
  }

  // The experiment both configs share: 8 steps of 8 samples an epoch, SGD, fp32 and bf16.
  json experiment(const json& model) {
    return {{"name", "pair"},
            {"model", model},
            {"data",
             {{"synthetic",
               {{"train_samples", 64}, {"val_samples", 16}, {"shape", {kFeatures}}, {"classes", kClasses}}}}},
            {"train", {{"epochs", 1}, {"batch_size", 8}, {"optimizer", {{"type", "sgd"}, {"lr", 0.01}}}}},
            {"precision", {{"modes", {"fp32", "bf16"}}}},
            {"device", "cpu"}};
  }

  // graph_runner_overhead on the native mlp and an exported `archive`, the exported config changed by `edit`.
  Result pair(const fs::path& archive, const std::string& args = "",
              const std::function<void(json&)>& edit = {}) {
    const auto native = write_config(
        experiment({{"type", "mlp"}, {"options", {{"width", kWidth}, {"depth", 1}}}}), "native.json");
    auto exported_config = experiment({{"type", "exported"}, {"options", {{"path", archive.string()}}}});
    if (edit) edit(exported_config);
    const auto exported = write_config(exported_config, "exported.json");
    return run_binary(graph_runner_overhead_binary(),
                      "--native " + native.string() + " --exported " + exported.string() + " " + args);
  }

  // A refusal: exit 2, `expected` in its one line on stderr, nothing on stdout.
  void expect_refusal(const Result& result, const std::string& expected) {
    EXPECT_EQ(result.exit_code, 2);
    EXPECT_NE(result.err.find(expected), std::string::npos) << result.err;
    EXPECT_EQ(line_count(result.err), 1u) << result.err;
    EXPECT_EQ(result.out, "");
  }
};

TEST_F(GraphRunnerOverhead, PrintsTheEnvironmentAndARowPerModeWithItsIntervalAndVerdict) {
  plant_mlp(dir_ / "mlp.pt2");
  const auto result = pair(dir_ / "mlp.pt2", "--rounds 3 --block-steps 2");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_TRUE(std::regex_search(result.out, std::regex("(^|\n)- ampbench .+; LibTorch [0-9]"))) << result.out;
  EXPECT_NE(result.out.find("range over 3 rounds (blocks of 2 steps)"), std::string::npos) << result.out;
  for (const std::string mode : {"fp32", "bf16"}) {
    const std::regex row(
        "\n\\| " + mode +
        " \\| [0-9.]+ \\| [0-9.]+ \\| [-+][0-9.]+% \\[[-+][0-9.]+%, [-+][0-9.]+%\\] \\| .* \\| "
        "(met|not met|undecided: the interval spans 3%) \\|\n");
    EXPECT_TRUE(std::regex_search(result.out, row)) << mode << ":\n" << result.out;
  }
}

TEST_F(GraphRunnerOverhead, RefusesModelsWhoseStatesDifferAndConfigsThatDifferBeyondTheModel) {
  plant_mlp(dir_ / "renamed.pt2", "fc1");
  expect_refusal(pair(dir_ / "renamed.pt2"), "the native model has no parameter \"fc1.weight\"");
  plant_mlp(dir_ / "wider.pt2", "layers.0", 2 * kWidth);
  expect_refusal(pair(dir_ / "wider.pt2"),
                 "the parameter \"layers.0.weight\" is [16, 4] in the exported model");
  plant_mlp(dir_ / "mlp.pt2");
  expect_refusal(pair(dir_ / "mlp.pt2", "", [](json& c) { c["train"]["batch_size"] = 4; }),
                 "in more than its name and model");
  expect_refusal(pair(dir_ / "mlp.pt2", "--rounds 1"), "--rounds");
}

}  // namespace
}  // namespace ampbench::testing
