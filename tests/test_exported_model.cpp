// The exported model type: a torch.export archive read, compiled and trained node by node. The archives are
// written here (export_fixture.h), so these tests need no Python; tests/test_export_parity.cpp checks real
// torch.export archives against the modules they came from.
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>
#include <torch/library.h>
#include <torch/torch.h>

#include "amp/autocast_scope.h"
#include "config/experiment_config.h"
#include "models/registry.h"
#include "util/input_error.h"

#include "export_fixture.h"
#include "temp_dir_test.h"

namespace {

using ampbench::models::InputSpec;
using ampbench::testing::batch_size;
using ampbench::testing::json;
using ampbench::testing::ProgramBuilder;
using ampbench::testing::static_size;
using ampbench::testing::tensor_argument;

const std::string kLinear = "torch.ops.aten.linear.default";
const std::string kRelu = "torch.ops.aten.relu.default";
const InputSpec kFeatures{{4}, 3, false};

class ExportedModel : public ampbench::testing::TempDirTest {
 protected:
  // x [N, 4] -> fc1 (4 -> 8) -> relu -> fc2 (8 -> 3), exported at a batch of 2.
  ProgramBuilder mlp(bool freeze_fc1 = false) {
    torch::manual_seed(1);
    ProgramBuilder b;
    for (const auto& [name, in, out] : {std::tuple{"fc1", 4, 8}, std::tuple{"fc2", 8, 3}}) {
      weights_[std::string(name) + ".weight"] = torch::randn({out, in});
      weights_[std::string(name) + ".bias"] = torch::randn({out});
      const bool frozen = freeze_fc1 && std::string(name) == "fc1";
      b.state(std::string(name) + ".weight", weights_[std::string(name) + ".weight"], true, frozen);
      b.state(std::string(name) + ".bias", weights_[std::string(name) + ".bias"], true);
    }
    b.user_input("x", {batch_size(2), static_size(4)});
    b.node(kLinear,
           {{"input", tensor_argument("x")},
            {"weight", tensor_argument("p_fc1_weight")},
            {"bias", tensor_argument("p_fc1_bias")}},
           "linear", {batch_size(2), static_size(8)});
    b.node(kRelu, {{"self", tensor_argument("linear")}}, "relu", {batch_size(2), static_size(8)});
    b.node(kLinear,
           {{"input", tensor_argument("relu")},
            {"weight", tensor_argument("p_fc2_weight")},
            {"bias", tensor_argument("p_fc2_bias")}},
           "linear_1", {batch_size(2), static_size(3)});
    b.output("linear_1");
    return b;
  }

  std::shared_ptr<const ampbench::models::ModelSpec> read(const std::filesystem::path& path,
                                                          const InputSpec& input = kFeatures) {
    const json document{{"path", path.string()}};  // the reader keeps a reference
    ampbench::util::ObjectReader options(document, "/model/options");
    return ampbench::models::find_model("exported")->read(options, input);
  }

  torch::Tensor expected_mlp(const torch::Tensor& x) {
    auto hidden = torch::relu(torch::linear(x, weights_["fc1.weight"], weights_["fc1.bias"]));
    return torch::linear(hidden, weights_["fc2.weight"], weights_["fc2.bias"]);
  }

  std::map<std::string, torch::Tensor> weights_;
};

TEST_F(ExportedModel, RunsTheGraphAtAnyBatchWithTheArchivesWeightsAsTrainableParameters) {
  mlp().write(dir_ / "m.pt2");
  auto network = read(dir_ / "m.pt2")->build();
  const auto x = torch::randn({5, 4});
  auto logits = network->forward(x);
  EXPECT_TRUE(torch::allclose(logits, expected_mlp(x), 1e-6, 1e-6));

  // Named as in the exported module, fp32 leaves with gradients equal to eager autograd's.
  auto parameters = network->named_parameters();
  ASSERT_EQ(parameters.size(), 4u);
  ASSERT_NE(parameters.find("fc2.weight"), nullptr);
  logits.square().sum().backward();
  auto w = weights_["fc2.weight"].clone().requires_grad_(true);
  auto hidden = torch::relu(torch::linear(x, weights_["fc1.weight"], weights_["fc1.bias"]));
  torch::linear(hidden, w, weights_["fc2.bias"]).square().sum().backward();
  EXPECT_TRUE(torch::allclose(parameters["fc2.weight"].grad(), w.grad(), 1e-6, 1e-5));
  // The archive's weights, not the seed's: a second build starts from the same values.
  torch::manual_seed(99);
  EXPECT_TRUE(
      torch::equal(read(dir_ / "m.pt2")->build()->named_parameters()["fc1.weight"], weights_["fc1.weight"]));
}

// A parameter the exported module froze (requires_grad off in the archive) is a parameter that never trains.
TEST_F(ExportedModel, AFrozenParameterStaysFrozen) {
  mlp(/*freeze_fc1=*/true).write(dir_ / "frozen.pt2");
  auto network = read(dir_ / "frozen.pt2")->build();
  auto parameters = network->named_parameters();
  EXPECT_FALSE(parameters["fc1.weight"].requires_grad());
  EXPECT_TRUE(parameters["fc1.bias"].requires_grad());
  network->forward(torch::randn({3, 4})).sum().backward();
  EXPECT_FALSE(parameters["fc1.weight"].grad().defined());
  EXPECT_TRUE(parameters["fc2.weight"].grad().defined());
}

// Tied weights (GPT-2's embedding and LM head): two names of one record in the archive, one parameter here,
// named as the program first reads it, whose gradient sums both uses, counted once.
TEST_F(ExportedModel, TiedWeightsStayOneParameter) {
  ProgramBuilder b;
  const auto weight = torch::randn({4, 4});
  b.state("embed.weight", weight, true);
  b.state("head.weight", weight, true);
  b.user_input("x", {batch_size(2), static_size(4)});
  b.node(kLinear, {{"input", tensor_argument("x")}, {"weight", tensor_argument("p_embed_weight")}}, "hidden",
         {batch_size(2), static_size(4)});
  b.node(kLinear, {{"input", tensor_argument("hidden")}, {"weight", tensor_argument("p_head_weight")}}, "out",
         {batch_size(2), static_size(4)});
  b.output("out");
  b.write(dir_ / "tied.pt2", b.program(), 0, [](json& c) {
    c["config"]["head.weight"]["path_name"] = c["config"]["embed.weight"]["path_name"];
  });
  const auto spec = read(dir_ / "tied.pt2", InputSpec{{4}, 4, false});
  EXPECT_EQ(spec->size().parameters, 16);
  auto network = spec->build();
  const auto parameters = network->named_parameters();
  ASSERT_EQ(parameters.size(), 1u);
  ASSERT_NE(parameters.find("embed.weight"), nullptr);
  const auto x = torch::randn({3, 4});
  network->forward(x).sum().backward();
  auto w = weight.clone().requires_grad_(true);
  torch::linear(torch::linear(x, w), w).sum().backward();
  EXPECT_TRUE(torch::allclose(parameters["embed.weight"].grad(), w.grad(), 1e-6, 1e-5));
}

TEST_F(ExportedModel, AutocastReachesTheGraphsOps) {
  mlp().write(dir_ / "m.pt2");
  auto network = read(dir_ / "m.pt2")->build();
  ampbench::amp::AutocastScope autocast(c10::DeviceType::CPU, torch::kBFloat16);
  EXPECT_EQ(network->forward(torch::randn({3, 4})).scalar_type(), torch::kBFloat16);
}

// One sample's training step: fc1's forward (2 x 4 x 8) and its weight's gradient (its input, the batch,
// needs none), fc2's forward (2 x 8 x 3) and both its gradients; a frozen fc1 has no backward.
TEST_F(ExportedModel, CountsATrainingStepsMatrixFlopsPerSampleAndStateFromTheArchive) {
  mlp().write(dir_ / "m.pt2");
  auto spec = read(dir_ / "m.pt2");
  const auto flops = spec->train_flops(kFeatures);
  EXPECT_DOUBLE_EQ(flops.per_sample, 2 * (4 * 8) * 2 + 2 * (8 * 3) * 3);
  EXPECT_TRUE(flops.uncounted.empty());
  mlp(/*freeze_fc1=*/true).write(dir_ / "frozen.pt2");
  EXPECT_DOUBLE_EQ(read(dir_ / "frozen.pt2")->train_flops(kFeatures).per_sample,
                   2 * (4 * 8) + 2 * (8 * 3) * 3);
  EXPECT_DOUBLE_EQ(spec->size().parameters, 4 * 8 + 8 + 8 * 3 + 3);
  EXPECT_EQ(spec->options_json(), (json{{"path", (dir_ / "m.pt2").string()}}));
}

// A size without a hint (an unbacked SymInt, from a data-dependent op) is no malformed program: it runs,
// and the op whose sizes it decides is named as uncounted rather than counted as zero or refused.
TEST_F(ExportedModel, AnUnbackedSizeRunsAndLeavesItsOpsFlopsUncounted) {
  auto b = mlp();
  auto program = b.program();
  program["graph_module"]["graph"]["tensor_values"]["relu"]["sizes"][0] = {
      {"as_expr", {{"expr_str", "Symbol('u0', integer=True)"}}}};
  b.write(dir_ / "unbacked.pt2", program);
  const auto spec = read(dir_ / "unbacked.pt2");
  const auto x = torch::randn({3, 4});
  EXPECT_TRUE(torch::allclose(spec->build()->forward(x), expected_mlp(x), 1e-5, 1e-5));
  const auto flops = spec->train_flops(kFeatures);
  EXPECT_EQ(flops.uncounted,
            std::vector<std::string>{
                "node \"linear_1\" (aten.linear.default): a size the run's values do not give"});
  EXPECT_DOUBLE_EQ(flops.per_sample, 2 * (4 * 8) * 2);  // fc1 alone
}

// x [N, 2, 2] -> reshape [N * 2, 2] -> reshape [sym_size(x, 0), -1]: symbolic ints computed on each run.
TEST_F(ExportedModel, SymbolicSizesFollowTheBatch) {
  ProgramBuilder p;
  torch::manual_seed(1);
  const auto w = torch::randn({3, 4});
  p.state("fc.weight", w, true);
  p.user_input("x", {batch_size(2), static_size(2), static_size(2)});
  json size_node{
      {"target", "torch.ops.aten.sym_size.int"},
      {"inputs",
       {{{"name", "self"}, {"arg", tensor_argument("x")}}, {{"name", "dim"}, {"arg", {{"as_int", 0}}}}}},
      {"outputs", {{{"as_sym_int", {{"as_name", "n"}}}}}}};
  json mul_node{{"target", "_operator.mul"},
                {"inputs",
                 {{{"name", "a"}, {"arg", {{"as_sym_int", {{"as_name", "n"}}}}}},
                  {{"name", "b"}, {"arg", {{"as_int", 2}}}}}},
                {"outputs", {{{"as_sym_int", {{"as_name", "n2"}}}}}}};
  auto program = p.program();
  auto& nodes = program["graph_module"]["graph"]["nodes"];
  nodes.push_back(size_node);
  nodes.push_back(mul_node);
  auto reshape = [](const std::string& in, json shape, const std::string& out) {
    return json{{"target", "torch.ops.aten.reshape.default"},
                {"inputs",
                 {{{"name", "self"}, {"arg", tensor_argument(in)}},
                  {{"name", "shape"}, {"arg", {{"as_sym_ints", shape}}}}}},
                {"outputs", {tensor_argument(out)}}};
  };
  nodes.push_back(reshape("x", {{{"as_name", "n2"}}, {{"as_int", 2}}}, "pairs"));
  nodes.push_back(reshape("pairs", {{{"as_name", "n"}}, {{"as_int", -1}}}, "flat"));
  nodes.push_back({{"target", kLinear},
                   {"inputs",
                    {{{"name", "input"}, {"arg", tensor_argument("flat")}},
                     {{"name", "weight"}, {"arg", tensor_argument("p_fc_weight")}}}},
                   {"outputs", {tensor_argument("out")}}});
  auto& values = program["graph_module"]["graph"]["tensor_values"];
  values["pairs"] = ampbench::testing::tensor_meta({batch_size(4), static_size(2)});
  values["flat"] = ampbench::testing::tensor_meta({batch_size(2), static_size(4)});
  values["out"] = ampbench::testing::tensor_meta({batch_size(2), static_size(3)});
  program["graph_module"]["graph"]["outputs"].push_back(tensor_argument("out"));
  program["graph_module"]["signature"]["output_specs"].push_back(
      {{"user_output", {{"arg", tensor_argument("out")}}}});
  p.write(dir_ / "s.pt2", program);
  auto network = read(dir_ / "s.pt2", InputSpec{{2, 2}, 3, false})->build();
  for (const int64_t batch : {1, 7}) {
    const auto x = torch::randn({batch, 2, 2});
    EXPECT_TRUE(torch::allclose(network->forward(x), torch::linear(x.reshape({batch, 4}), w)));
  }
}

// batch_norm with training=True and num_batches_tracked += 1, as torch.export writes a BatchNorm layer.
TEST_F(ExportedModel, BatchNormUpdatesItsStatisticsInTrainingAndUsesThemInEvaluation) {
  ProgramBuilder b;
  const auto weight = torch::ones({2}), bias = torch::zeros({2});
  b.state("bn.weight", weight, true);
  b.state("bn.bias", bias, true);
  b.state("bn.running_mean", torch::zeros({2}), false);
  b.state("bn.running_var", torch::ones({2}), false);
  b.state("bn.num_batches_tracked", torch::zeros({}, torch::kLong), false);
  b.user_input("x", {batch_size(4), static_size(2)});
  b.node("torch.ops.aten.add_.Tensor",
         {{"self", tensor_argument("b_bn_num_batches_tracked")}, {"other", {{"as_int", 1}}}}, "add_", {}, 5);
  b.node("torch.ops.aten.batch_norm.default",
         {{"input", tensor_argument("x")},
          {"weight", tensor_argument("p_bn_weight")},
          {"bias", tensor_argument("p_bn_bias")},
          {"running_mean", tensor_argument("b_bn_running_mean")},
          {"running_var", tensor_argument("b_bn_running_var")},
          {"training", {{"as_bool", true}}},
          {"momentum", {{"as_float", 0.1}}},
          {"eps", {{"as_float", 1e-5}}},
          {"cudnn_enabled", {{"as_bool", false}}}},
         "bn", {batch_size(4), static_size(2)});
  b.output("bn");
  b.write(dir_ / "bn.pt2");
  auto network = read(dir_ / "bn.pt2", InputSpec{{2}, 2, false})->build();
  const auto x = torch::randn({6, 2}) * 3 + 1;
  auto buffers = network->named_buffers();
  network->train();
  const auto trained = network->forward(x);
  EXPECT_TRUE(torch::allclose(trained, (x - x.mean(0)) / torch::sqrt(x.var(0, false) + 1e-5), 1e-5, 1e-5));
  EXPECT_TRUE(torch::allclose(buffers["bn.running_mean"], 0.1 * x.mean(0)));
  EXPECT_EQ(buffers["bn.num_batches_tracked"].item<int64_t>(), 1);

  network->eval();
  const auto mean = buffers["bn.running_mean"].clone(), var = buffers["bn.running_var"].clone();
  EXPECT_TRUE(torch::allclose(network->forward(x), (x - mean) / torch::sqrt(var + 1e-5), 1e-5, 1e-5));
  EXPECT_TRUE(torch::equal(buffers["bn.running_mean"], mean));  // evaluation leaves the statistics alone
}

// Each training flag keeps what the program says in train() and is cleared in eval(), except where eager's
// module keeps it: batch norm without running statistics (track_running_stats=False) normalises with the
// batch's in both; one exported from eval() (a frozen layer) uses its running statistics and leaves them
// alone in train() too; native_dropout's `bool? train`, as a core-ATen archive writes it, is off in eval().
TEST_F(ExportedModel, TrainingFlagsKeepTheProgramsValueInTrainingAndFollowEagerModulesInEvaluation) {
  ProgramBuilder b;
  b.state("frozen.running_mean", torch::full({2}, 0.5), false);
  b.state("frozen.running_var", torch::full({2}, 4.0), false);
  b.user_input("x", {batch_size(8), static_size(2)});
  auto batch_norm = [&](const std::string& input, const json& mean, const json& var, bool training,
                        const std::string& output) {
    const json none{{"as_none", nullptr}};
    b.node("torch.ops.aten.batch_norm.default",
           {{"input", tensor_argument(input)},
            {"weight", none},
            {"bias", none},
            {"running_mean", mean},
            {"running_var", var},
            {"training", {{"as_bool", training}}},
            {"momentum", {{"as_float", 0.1}}},
            {"eps", {{"as_float", 1e-5}}},
            {"cudnn_enabled", {{"as_bool", false}}}},
           output, {batch_size(8), static_size(2)});
  };
  batch_norm("x", {{"as_none", nullptr}}, {{"as_none", nullptr}}, true, "batch_statistics");
  batch_norm("batch_statistics", tensor_argument("b_frozen_running_mean"),
             tensor_argument("b_frozen_running_var"), false, "frozen");
  auto program = b.program();
  auto& graph = program["graph_module"]["graph"];
  graph["nodes"].push_back({{"target", "torch.ops.aten.native_dropout.default"},
                            {"inputs",
                             {{{"name", "input"}, {"arg", tensor_argument("frozen")}, {"kind", 1}},
                              {{"name", "p"}, {"arg", {{"as_float", 0.5}}}, {"kind", 1}},
                              {{"name", "train"}, {"arg", {{"as_bool", true}}}, {"kind", 1}}}},
                            {"outputs", {tensor_argument("dropped"), tensor_argument("mask")}},
                            {"metadata", json::object()}});
  graph["tensor_values"]["dropped"] = ampbench::testing::tensor_meta({batch_size(8), static_size(2)});
  graph["tensor_values"]["mask"] = ampbench::testing::tensor_meta({batch_size(8), static_size(2)}, 12);
  graph["outputs"].push_back(tensor_argument("dropped"));
  program["graph_module"]["signature"]["output_specs"].push_back(
      {{"user_output", {{"arg", tensor_argument("dropped")}}}});
  b.write(dir_ / "flags.pt2", program);
  auto network = read(dir_ / "flags.pt2", InputSpec{{2}, 2, false})->build();
  torch::manual_seed(3);
  const auto x = torch::randn({8, 2}) * 3 + 1;
  const auto normalised = (x - x.mean(0)) / torch::sqrt(x.var(0, false) + 1e-5);
  const auto frozen = (normalised - 0.5) / std::sqrt(4.0 + 1e-5);
  auto buffers = network->named_buffers();

  network->train();
  const auto trained = network->forward(x);
  const auto kept = trained != 0;
  EXPECT_TRUE(torch::allclose(trained.masked_select(kept), 2 * frozen.masked_select(kept), 1e-5, 1e-5));
  EXPECT_GT(kept.logical_not().sum().item<int64_t>(), 0);  // dropout is on: p = 0.5 over 16 elements
  network->eval();
  EXPECT_TRUE(torch::allclose(network->forward(x), frozen, 1e-5, 1e-5));
  EXPECT_TRUE(torch::equal(buffers["frozen.running_mean"], torch::full({2}, 0.5)));
  EXPECT_TRUE(torch::equal(buffers["frozen.running_var"], torch::full({2}, 4.0)));
}

// A serialized node's JSON: positional (unnamed) or named arguments, tensor outputs.
json node_json(const std::string& target, const std::vector<std::pair<std::string, json>>& arguments,
               const std::vector<std::string>& outputs) {
  json node{{"target", target},
            {"inputs", json::array()},
            {"outputs", json::array()},
            {"metadata", json::object()}};
  for (const auto& [name, argument] : arguments)
    node["inputs"].push_back({{"name", name}, {"arg", argument}, {"kind", 1}});
  for (const auto& output : outputs) node["outputs"].push_back(tensor_argument(output));
  return node;
}

json nested_graph(const std::vector<std::string>& inputs, const json& nodes, const std::string& output) {
  json graph{{"inputs", json::array()},
             {"outputs", {tensor_argument(output)}},
             {"nodes", nodes},
             {"tensor_values", json::object()},
             {"sym_int_values", json::object()},
             {"sym_bool_values", json::object()}};
  for (const auto& input : inputs) graph["inputs"].push_back(tensor_argument(input));
  return {{"as_graph", {{"name", "submod"}, {"graph", graph}}}};
}

// out = linear(x, w) under bf16 autocast, as float, + mean(w * 2) computed without grad, + ones(4) made on
// the device the program was exported on (a GPU's), + linear(x, w) in a region that the program, exported
// on a GPU, keeps out of autocast: run under the mode's CPU autocast, as eager code with the same scopes
// computes it.
TEST_F(ExportedModel, NestedGraphsRunUnderTheirGradModeAndAutocastAndDevicesAreTheRuns) {
  ProgramBuilder b;
  torch::manual_seed(2);
  const auto weight = torch::randn({4, 4});
  b.state("fc.weight", weight, true);
  b.user_input("x", {batch_size(2), static_size(4)});
  auto program = b.program();
  auto& graph = program["graph_module"]["graph"];
  const json no_grad_body = {
      node_json("torch.ops.aten.mul.Tensor", {{"self", tensor_argument("w")}, {"other", {{"as_float", 2.0}}}},
                {"w2"}),
      node_json("torch.ops.aten.mean.dim", {{"self", tensor_argument("w2")}, {"dim", {{"as_ints", {0}}}}},
                {"m"})};
  const json autocast_body = {
      node_json(kLinear, {{"input", tensor_argument("a")}, {"weight", tensor_argument("v")}}, {"lin"})};
  // linear(x, fc.weight) in a region of autocast on `device` (as the program names it), to `output`.
  auto autocast_region = [&](const std::string& device, const json& dtype, bool enabled,
                             const std::string& output) {
    return node_json("torch.ops.higher_order.wrap_with_autocast",
                     {{"", {{"as_string", device}}},
                      {"", dtype},
                      {"", {{"as_bool", enabled}}},
                      {"", {{"as_bool", false}}},
                      {"", nested_graph({"a", "v"}, autocast_body, "lin")},
                      {"", tensor_argument("x")},
                      {"", tensor_argument("p_fc_weight")}},
                     {output});
  };
  graph["nodes"] = {
      node_json("torch.ops.higher_order.wrap_with_set_grad_enabled",
                {{"", {{"as_bool", false}}},
                 {"", nested_graph({"w"}, no_grad_body, "m")},
                 {"", tensor_argument("p_fc_weight")}},
                {"frozen"}),
      autocast_region("cpu", {{"as_scalar_type", 13}}, true, "lowp"),
      autocast_region("cuda", {{"as_none", true}}, false, "full"),
      node_json("torch.ops.aten.to.dtype",
                {{"self", tensor_argument("lowp")}, {"dtype", {{"as_scalar_type", 7}}}}, {"wide"}),
      node_json("torch.ops.aten.ones.default",
                {{"size", {{"as_ints", {4}}}}, {"device", {{"as_device", {{"type", "cuda"}, {"index", 0}}}}}},
                {"ones"}),
      node_json("torch.ops.aten.add.Tensor",
                {{"self", tensor_argument("wide")}, {"other", tensor_argument("frozen")}}, {"sum"}),
      node_json("torch.ops.aten.add.Tensor",
                {{"self", tensor_argument("sum")}, {"other", tensor_argument("ones")}}, {"sum2"}),
      node_json("torch.ops.aten.add.Tensor",
                {{"self", tensor_argument("sum2")}, {"other", tensor_argument("full")}}, {"out"})};
  graph["tensor_values"]["out"] = ampbench::testing::tensor_meta({batch_size(2), static_size(4)});
  for (auto& meta : graph["tensor_values"]) meta["device"]["type"] = "cuda";  // exported on a GPU
  graph["outputs"].push_back(tensor_argument("out"));
  program["graph_module"]["signature"]["output_specs"].push_back(
      {{"user_output", {{"arg", tensor_argument("out")}}}});
  b.write(dir_ / "nested.pt2", program);
  auto network = read(dir_ / "nested.pt2", InputSpec{{4}, 4, false})->build();
  const auto x = torch::randn({3, 4});
  torch::Tensor ours;
  {
    ampbench::amp::AutocastScope mode(c10::DeviceType::CPU, torch::kBFloat16);
    ours = network->forward(x);
  }
  ours.sum().backward();

  auto w = weight.clone().requires_grad_(true);
  torch::Tensor theirs;
  {
    ampbench::amp::AutocastScope mode(c10::DeviceType::CPU, torch::kBFloat16);
    torch::Tensor frozen, lowp, full;
    {
      torch::NoGradGuard no_grad;
      frozen = (w * 2).mean(0);
    }
    lowp = torch::linear(x, w);
    {
      ampbench::amp::AutocastScope off(c10::DeviceType::CPU, std::nullopt);
      full = torch::linear(x, w);
    }
    theirs = lowp.to(torch::kFloat) + frozen + torch::ones({4}) + full;
  }
  theirs.sum().backward();
  EXPECT_TRUE(torch::equal(ours, theirs));
  EXPECT_TRUE(torch::equal(network->named_parameters()["fc.weight"].grad(), w.grad()));
}

// A region of another device's autocast than the program's tensors' (torch.autocast("cuda") in a program
// exported on the CPU) leaves the run's ops alone on a run on the CPU, as it does in eager code: linear
// runs under the mode's bf16, not the region's fp16.
TEST_F(ExportedModel, AnAutocastRegionOfAnotherDeviceLeavesTheRunsOpsAlone) {
  ProgramBuilder b;
  const auto weight = torch::randn({4, 4});
  b.state("fc.weight", weight, true);
  b.user_input("x", {batch_size(2), static_size(4)});
  auto program = b.program();
  auto& graph = program["graph_module"]["graph"];
  const json body = {
      node_json(kLinear, {{"input", tensor_argument("a")}, {"weight", tensor_argument("v")}}, {"lin"})};
  graph["nodes"] = {node_json("torch.ops.higher_order.wrap_with_autocast",
                              {{"", {{"as_string", "cuda"}}},
                               {"", {{"as_scalar_type", 6}}},  // float16
                               {"", {{"as_bool", true}}},
                               {"", {{"as_bool", true}}},
                               {"", nested_graph({"a", "v"}, body, "lin")},
                               {"", tensor_argument("x")},
                               {"", tensor_argument("p_fc_weight")}},
                              {"out"})};
  graph["tensor_values"]["out"] = ampbench::testing::tensor_meta({batch_size(2), static_size(4)});
  graph["outputs"].push_back(tensor_argument("out"));
  program["graph_module"]["signature"]["output_specs"].push_back(
      {{"user_output", {{"arg", tensor_argument("out")}}}});
  b.write(dir_ / "region.pt2", program);
  auto network = read(dir_ / "region.pt2", InputSpec{{4}, 4, false})->build();
  const auto x = torch::randn({3, 4});
  ampbench::amp::AutocastScope mode(c10::DeviceType::CPU, torch::kBFloat16);
  const auto ours = network->forward(x);
  EXPECT_EQ(ours.scalar_type(), torch::kBFloat16);
  EXPECT_TRUE(torch::equal(ours, torch::linear(x, weight)));
}

// A "(Tensor, Tensor[])" return whose list held an undefined tensor (a None, which the serializer leaves
// out of the list) still fills the names the program gives, in order.
std::tuple<at::Tensor, std::vector<at::Tensor>> doubled_and_neighbours(const at::Tensor& x) {
  return {x * 2, {x + 1, at::Tensor(), x - 1}};
}

TORCH_LIBRARY_FRAGMENT(ampbench_test, library) {
  library.def("doubled_and_neighbours(Tensor x) -> (Tensor, Tensor[])", doubled_and_neighbours);
}

TEST_F(ExportedModel, AListReturnWrittenWithoutItsNoneElementsFillsTheNamedOnes) {
  ProgramBuilder b;
  b.user_input("x", {batch_size(2), static_size(4)});
  auto program = b.program();
  auto& graph = program["graph_module"]["graph"];
  graph["nodes"] = {
      {{"target", "torch.ops.ampbench_test.doubled_and_neighbours.default"},
       {"inputs", {{{"name", "x"}, {"arg", tensor_argument("x")}, {"kind", 1}}}},
       {"outputs", {tensor_argument("doubled"), {{"as_tensors", {{{"name", "up"}}, {{"name", "down"}}}}}}},
       {"metadata", json::object()}},
      node_json("torch.ops.aten.add.Tensor",
                {{"self", tensor_argument("up")}, {"other", tensor_argument("down")}}, {"both"}),
      node_json("torch.ops.aten.add.Tensor",
                {{"self", tensor_argument("both")}, {"other", tensor_argument("doubled")}}, {"out"})};
  for (const auto* name : {"doubled", "up", "down", "both", "out"})
    graph["tensor_values"][name] = ampbench::testing::tensor_meta({batch_size(2), static_size(4)});
  graph["outputs"].push_back(tensor_argument("out"));
  program["graph_module"]["signature"]["output_specs"].push_back(
      {{"user_output", {{"arg", tensor_argument("out")}}}});
  b.write(dir_ / "list.pt2", program);
  auto network = read(dir_ / "list.pt2", InputSpec{{4}, 4, false})->build();
  const auto x = torch::randn({3, 4});
  EXPECT_TRUE(torch::allclose(network->forward(x), 4 * x));
}

// Python's ints where the schema takes floats: upsample's scale_factors=[2, 2] is [2.0, 2.0].
TEST_F(ExportedModel, IntegerListsPassedForFloatListsAreFloats) {
  ProgramBuilder b;
  b.user_input("x", {batch_size(2), static_size(1), static_size(2), static_size(2)});
  b.node("torch.ops.aten.upsample_nearest2d.vec",
         {{"input", tensor_argument("x")},
          {"output_size", {{"as_none", nullptr}}},
          {"scale_factors", {{"as_ints", {2, 2}}}}},
         "up", {batch_size(2), static_size(1), static_size(4), static_size(4)});
  b.node("torch.ops.aten.flatten.using_ints",
         {{"self", tensor_argument("up")}, {"start_dim", {{"as_int", 1}}}}, "flat",
         {batch_size(2), static_size(16)});
  b.output("flat");
  b.write(dir_ / "upsample.pt2");
  auto network = read(dir_ / "upsample.pt2", InputSpec{{1, 2, 2}, 16, false})->build();
  const auto x = torch::randn({3, 1, 2, 2});
  const auto expected = at::upsample_nearest2d(x, std::nullopt, std::vector<double>{2.0, 2.0}).flatten(1);
  EXPECT_TRUE(torch::equal(network->forward(x), expected));
}

// A functional program returns a buffer's new value and its signature names the buffer: copied in after
// each run, as the eager module's in-place update leaves it.
TEST_F(ExportedModel, ABufferMutationInTheSignatureUpdatesTheBuffer) {
  ProgramBuilder b;
  b.state("stats.total", torch::zeros({4}), false);
  b.user_input("x", {batch_size(2), static_size(4)});
  b.node("torch.ops.aten.sum.dim_IntList", {{"self", tensor_argument("x")}, {"dim", {{"as_ints", {0}}}}}, "s",
         {static_size(4)});
  b.node("torch.ops.aten.add.Tensor",
         {{"self", tensor_argument("b_stats_total")}, {"other", tensor_argument("s")}}, "new_total",
         {static_size(4)});
  b.node("torch.ops.aten.mul.Tensor", {{"self", tensor_argument("x")}, {"other", {{"as_float", 2.0}}}}, "out",
         {batch_size(2), static_size(4)});
  auto program = b.program();
  auto& module = program["graph_module"];
  module["graph"]["outputs"] = {tensor_argument("new_total"), tensor_argument("out")};
  module["signature"]["output_specs"] = {
      {{"buffer_mutation", {{"arg", {{"name", "new_total"}}}, {"buffer_name", "stats.total"}}}},
      {{"user_output", {{"arg", tensor_argument("out")}}}}};
  b.write(dir_ / "mutation.pt2", program);
  auto network = read(dir_ / "mutation.pt2", InputSpec{{4}, 4, false})->build();
  const auto x = torch::randn({3, 4});
  EXPECT_TRUE(torch::equal(network->forward(x), x * 2));
  EXPECT_TRUE(torch::allclose(network->named_buffers()["stats.total"], x.sum(0)));
  network->forward(x);
  EXPECT_TRUE(torch::allclose(network->named_buffers()["stats.total"], 2 * x.sum(0)));
}

// Each refusal is one line at /model/options/path naming what is wrong: the node, its op and the argument.
TEST_F(ExportedModel, RefusesWhatItCannotRunNamingTheNodeOpAndArgument) {
  struct Case {
    std::string name;
    std::function<void(json&)> plant;
    std::string expected;
  };
  auto node = [](json& p, size_t i) -> json& { return p["graph_module"]["graph"]["nodes"][i]; };
  const std::vector<Case> cases{
      {"unknown op", [&](json& p) { node(p, 1)["target"] = "torch.ops.aten.no_such_op.default"; },
       "node \"relu\" (aten.no_such_op.default): is not an op this LibTorch's dispatcher has"},
      {"not an op", [&](json& p) { node(p, 1)["target"] = "builtins.print"; },
       "node \"relu\" (builtins.print): is not an op of c10's dispatcher"},
      {"higher-order op", [&](json& p) { node(p, 1)["target"] = "torch.ops.higher_order.cond"; },
       "node \"relu\" (higher_order.cond): is a higher-order op ampbench does not run (it runs "
       "wrap_with_set_grad_enabled and wrap_with_autocast)"},
      {"argument kind",
       [&](json& p) {
         node(p, 1)["inputs"][0]["arg"] = {{"as_custom_obj", {{"name", "o"}, {"class_fqn", "c"}}}};
       },
       "node \"relu\" (aten.relu.default): argument \"self\" is a kind of argument (as_custom_obj) that "
       "ampbench cannot pass"},
      {"unknown argument",
       [&](json& p) { node(p, 1)["inputs"].push_back({{"name", "bogus"}, {"arg", {{"as_int", 1}}}}); },
       "node \"relu\" (aten.relu.default): has an argument \"bogus\" its schema does not name"},
      {"undefined value", [&](json& p) { node(p, 1)["inputs"][0]["arg"] = tensor_argument("ghost"); },
       "node \"relu\" (aten.relu.default): argument \"self\" reads the value \"ghost\" before any node "
       "defines it"},
      {"malformed node", [&](json& p) { node(p, 1).erase("target"); },
       "its program is not as torch.export writes it"},
      {"schema version", [](json& p) { p["schema_version"]["major"] = 9; },
       "its program's schema version is 9.20; ampbench reads version 8.x (torch 2.13 and 2.14)"},
      {"second user input",
       [](json& p) {
         p["graph_module"]["graph"]["inputs"].push_back(tensor_argument("y"));
         p["graph_module"]["signature"]["input_specs"].push_back(
             {{"user_input", {{"arg", tensor_argument("y")}}}});
       },
       "the program takes two tensors; ampbench gives it one batch"},
      {"update of no buffer",
       [](json& p) {
         p["graph_module"]["signature"]["output_specs"].push_back(
             {{"buffer_mutation", {{"arg", {{"name", "relu"}}}, {"buffer_name", "fc1.weight"}}}});
       },
       "the program updates \"fc1.weight\", which is no buffer it reads"},
      {"user-input mutation",
       [](json& p) {
         p["graph_module"]["signature"]["output_specs"].push_back(
             {{"user_input_mutation", {{"arg", {{"name", "relu"}}}, {"user_input_name", "x"}}}});
       },
       "the program returns a value of a kind (user_input_mutation) ampbench cannot take"},
  };
  const auto builder = mlp();
  for (const auto& c : cases) {
    auto program = builder.program();
    c.plant(program);
    const auto path = dir_ / (c.name + ".pt2");
    builder.write(path, program);
    try {
      read(path);
      ADD_FAILURE() << c.name << ": not refused";
    } catch (const ampbench::util::InputError& e) {
      EXPECT_EQ(e.where(), "/model/options/path") << c.name;
      EXPECT_NE(std::string(e.what()).find(c.expected), std::string::npos) << c.name << ": " << e.what();
    }
  }
}

TEST_F(ExportedModel, RefusesFilesThatAreNoArchiveOrWhoseWeightsFallShort) {
  const auto builder = mlp();
  std::ofstream(dir_ / "text.pt2") << "not a zip";
  {
    caffe2::serialize::PyTorchStreamWriter other((dir_ / "other.pt2").string());  // a zip of something else
    other.writeRecord("hello.txt", "hi", 2);
  }
  std::filesystem::create_directories(dir_ / "folder.pt2");
  builder.write(dir_ / "short.pt2", builder.program(), 4);
  builder.write(dir_ / "pickled.pt2", builder.program(), 0,
                [](json& c) { c["config"]["fc1.bias"]["use_pickle"] = true; });
  builder.write(dir_ / "renamed.pt2", builder.program(), 0, [](json& c) {
    c["config"]["fc9.bias"] = c["config"]["fc1.bias"];
    c["config"].erase("fc1.bias");
  });
  builder.write(dir_ / "untied.pt2", builder.program(), 0,
                [](json& c) { c["config"]["fc2.bias"]["path_name"] = c["config"]["fc1.bias"]["path_name"]; });
  const std::vector<std::pair<std::string, std::string>> cases{
      {"text.pt2", "is not a torch.export archive"},
      {"other.pt2", "is not a torch.export archive of one program: it holds 0 models/*.json records"},
      {"folder.pt2", "is not a regular file (expected a torch.export .pt2 archive)"},
      {"missing.pt2", "is not a regular file"},
      {"short.pt2",
       "weight \"fc2.bias\": its record data/weights/weight_3 holds 8 bytes, its metadata needs 12"},
      {"pickled.pt2", "weight \"fc1.bias\" is pickled"},
      {"untied.pt2", "weight \"fc2.bias\" is another view of \"fc1.bias\"'s storage"},
      {"renamed.pt2", "the program reads \"fc1.bias\", which the archive's weights and constants lack"}};
  for (const auto& [file, expected] : cases) {
    try {
      read(dir_ / file);
      ADD_FAILURE() << file << ": not refused";
    } catch (const ampbench::util::InputError& e) {
      EXPECT_EQ(e.where(), "/model/options/path") << file;
      EXPECT_NE(std::string(e.what()).find(expected), std::string::npos) << file << ": " << e.what();
      EXPECT_EQ(std::string(e.what()).find("Could this error message"), std::string::npos) << e.what();
    }
  }
}

TEST_F(ExportedModel, RefusesDataItsProgramCannotTakeOrWhoseTaskItsLogitsDoNotFit) {
  mlp().write(dir_ / "m.pt2");
  const std::vector<std::pair<InputSpec, std::string>> cases{
      {InputSpec{{5}, 3, false},
       "the exported program takes inputs [N, 4], the data gives samples of [N, 5]"},
      {InputSpec{{4}, 7, false},
       "the exported program returns [N, 3], not logits of [N, 7] for the data's 7 classes"},
      {InputSpec{{4}, 3, true},
       "the exported program takes features: token data needs a model that takes token ids"}};
  for (const auto& [input, expected] : cases) {
    try {
      read(dir_ / "m.pt2", input);
      ADD_FAILURE() << expected << ": not refused";
    } catch (const ampbench::util::InputError& e) {
      EXPECT_EQ(e.where(), "") << expected;  // the data's, which the config layer locates
      EXPECT_EQ(e.problem(), expected);
    }
  }
}

// ids [N, 8] -> embedding (6 tokens, width 4) -> linear -> next-token logits [N, 8, 6], exported at a batch
// of 2; the context is dynamic too when `any_context`.
ProgramBuilder token_model(bool any_context = false) {
  ProgramBuilder b;
  b.state("embed.weight", torch::randn({6, 4}), true);
  b.state("head.weight", torch::randn({6, 4}), true);
  const auto context = any_context ? batch_size(8) : static_size(8);
  b.user_input("ids", {batch_size(2), context}, /*dtype=*/5);
  b.node("torch.ops.aten.embedding.default",
         {{"weight", tensor_argument("p_embed_weight")}, {"indices", tensor_argument("ids")}}, "hidden",
         {batch_size(2), context, static_size(4)});
  b.node(kLinear, {{"input", tensor_argument("hidden")}, {"weight", tensor_argument("p_head_weight")}},
         "logits", {batch_size(2), context, static_size(6)});
  b.output("logits");
  return b;
}

// A config's data sized to the program where the config leaves sizes out, all of it when "data" is missing;
// what the config gives is kept, and refused at its place when the program cannot take it.
TEST_F(ExportedModel, TheDataIsSizedToTheProgramWhereTheConfigLeavesItOut) {
  mlp().write(dir_ / "m.pt2");
  token_model().write(dir_ / "lm.pt2");
  token_model(/*any_context=*/true).write(dir_ / "any.pt2");
  auto parse = [&](const std::string& archive, const json& data) {
    json config{{"name", "fit"},
                {"model", {{"type", "exported"}, {"options", {{"path", (dir_ / archive).string()}}}}}};
    if (!data.is_null()) config["data"] = data;
    return ampbench::config::parse_experiment_config(config).data;
  };
  auto expect_input = [](const ampbench::data::DataOptions& data, const std::string& source,
                         std::vector<int64_t> shape, int64_t classes, int64_t train_samples) {
    EXPECT_EQ(ampbench::data::to_string(data.source()), source);
    EXPECT_EQ(data.sample_shape(), shape) << source;
    EXPECT_EQ(data.classes(), classes) << source;
    EXPECT_EQ(data.train_samples(), train_samples) << source;
  };
  expect_input(parse("m.pt2", nullptr), "synthetic", {4}, 3, 2048);
  expect_input(parse("m.pt2", {{"synthetic", {{"train_samples", 64}}}}), "synthetic", {4}, 3, 64);
  expect_input(parse("lm.pt2", nullptr), "synthetic_tokens", {8}, 6, 1024);
  expect_input(parse("lm.pt2", {{"tokens", {{"dir", "corpus"}}}}), "tokens", {8}, 6, 0);
  expect_input(parse("any.pt2", {{"synthetic_tokens", {{"context", 32}}}}), "synthetic_tokens", {32}, 6,
               1024);

  const std::vector<std::tuple<std::string, json, std::string, std::string>> refused{
      {"m.pt2",
       {{"synthetic", {{"shape", {5}}}}},
       "/data/synthetic/shape",
       "the exported program takes inputs [N, 4], the data gives samples of [N, 5]"},
      {"m.pt2",
       {{"synthetic", {{"classes", 7}}}},
       "/data/synthetic/shape",
       "the exported program returns [N, 3], not logits of [N, 7] for the data's 7 classes"},
      {"lm.pt2",
       {{"synthetic", json::object()}},
       "/data/synthetic/shape",
       "the exported program takes token ids: it needs token data (synthetic_tokens or tokens)"},
      {"lm.pt2",
       {{"mnist", {{"dir", "digits"}}}},
       "/data/mnist",
       "the exported program takes token ids: it needs token data (synthetic_tokens or tokens)"}};
  for (const auto& [archive, data, where, problem] : refused) {
    try {
      parse(archive, data);
      ADD_FAILURE() << problem << ": not refused";
    } catch (const ampbench::util::InputError& e) {
      EXPECT_EQ(e.where(), where) << problem;
      EXPECT_EQ(e.problem(), problem);
    }
  }
}

// Without "data", a program that takes a feature dimension of any size leaves the data unsized: refused.
TEST_F(ExportedModel, AProgramOfAnyFeatureSizeNeedsTheDataNamed) {
  ProgramBuilder b;
  b.user_input("x", {batch_size(2), batch_size(4)});
  b.node(kRelu, {{"self", tensor_argument("x")}}, "relu", {batch_size(2), batch_size(4)});
  b.output("relu");
  b.write(dir_ / "any.pt2");
  const json config{{"name", "fit"},
                    {"model", {{"type", "exported"}, {"options", {{"path", (dir_ / "any.pt2").string()}}}}}};
  try {
    ampbench::config::parse_experiment_config(config);
    ADD_FAILURE() << "not refused";
  } catch (const ampbench::util::InputError& e) {
    EXPECT_EQ(e.where(), "/data");
    EXPECT_EQ(e.problem(),
              "is missing, and the model takes inputs with a dimension of any size: name a data source that "
              "sets it");
  }
}

}  // namespace
