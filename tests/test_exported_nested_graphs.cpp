// An exported model's nested graphs (wrap_with_set_grad_enabled, wrap_with_autocast) run under their grad
// mode and autocast, and the devices a program was exported on are the run's.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include "amp/autocast_scope.h"
#include "models/network.h"
#include "models/registry.h"

#include "export_fixture.h"
#include "exported_model_test.h"

namespace {

using ampbench::models::InputSpec;
using ampbench::testing::batch_size;
using ampbench::testing::ExportedModel;
using ampbench::testing::json;
using ampbench::testing::kLinear;
using ampbench::testing::node_json;
using ampbench::testing::ProgramBuilder;
using ampbench::testing::static_size;
using ampbench::testing::tensor_argument;

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

}  // namespace
