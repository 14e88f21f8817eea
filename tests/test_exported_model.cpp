// The exported model type: a torch.export archive read, compiled and trained node by node (what it refuses,
// and how it sizes the data, in test_exported_model_inputs.cpp). The archives are written here
// (export_fixture.h), so these tests need no Python; tests/test_export_parity.cpp checks real
// torch.export archives against the modules they came from.
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>
#include <torch/library.h>
#include <torch/torch.h>

#include "amp/autocast_scope.h"
#include "config/experiment_config.h"
#include "models/network.h"
#include "models/registry.h"
#include "util/input_error.h"

#include "export_fixture.h"
#include "exported_model_test.h"

namespace {

using ampbench::models::InputSpec;
using ampbench::testing::batch_size;
using ampbench::testing::ExportedModel;
using ampbench::testing::json;
using ampbench::testing::kFeatures;
using ampbench::testing::kLinear;
using ampbench::testing::node_json;
using ampbench::testing::ProgramBuilder;
using ampbench::testing::static_size;
using ampbench::testing::tensor_argument;

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

}  // namespace
