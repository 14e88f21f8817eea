// The matrix FLOPs of a torch.export graph's training step, counted op by op as torch.utils.flop_counter
// counts them: every op it counts and the ops a program keeps before decomposition, at the run's sizes,
// nested graphs included, each op's backward by its rule, and the ops that cannot be counted named.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "models/export_flops.h"
#include "models/symbolic_sizes.h"

namespace {

using ampbench::models::count_graph_flops;
using ampbench::models::SymbolValues;
using nlohmann::json;

json size(int64_t value) { return {{"as_int", value}}; }
json symbol(const std::string& name, int64_t hint) {
  return {
      {"as_expr",
       {{"expr_str", "Symbol('" + name + "', positive=True, integer=True)"}, {"hint", {{"as_int", hint}}}}}};
}
json tensor(const std::string& name) { return {{"as_tensor", {{"name", name}}}}; }

// A graph built node by node, each tensor with its sizes.
class Graph {
 public:
  Graph& sizes(const std::string& name, const std::vector<json>& sizes) {
    graph_["tensor_values"][name] = {{"dtype", 7}, {"sizes", sizes}};
    return *this;
  }
  Graph& shape(const std::string& name, const std::vector<int64_t>& sizes) {
    std::vector<json> written;
    for (const auto value : sizes) written.push_back(size(value));
    return this->sizes(name, written);
  }
  Graph& input(const std::string& name) {
    graph_["inputs"].push_back(tensor(name));
    return *this;
  }
  Graph& node(const std::string& target, const std::vector<std::pair<std::string, json>>& arguments,
              const std::vector<json>& outputs) {
    json inputs = json::array();
    for (const auto& [name, argument] : arguments) inputs.push_back({{"name", name}, {"arg", argument}});
    graph_["nodes"].push_back({{"target", target}, {"inputs", inputs}, {"outputs", outputs}});
    return *this;
  }
  Graph& output(const std::string& name) {
    graph_["outputs"].push_back(tensor(name));
    return *this;
  }
  const json& graph() const { return graph_; }

 private:
  json graph_{{"inputs", json::array()},
              {"outputs", json::array()},
              {"nodes", json::array()},
              {"tensor_values", json::object()}};
};

const json kNone{{"as_none", nullptr}};
json ints(const std::vector<int64_t>& values) { return {{"as_ints", values}}; }

// The decoder layer: ConvTranspose2d(64, 32, 4, stride 2, padding 1) on 16 x 16, 8.39 M
// multiply-adds per sample, counted on the input's size; its backward, for the weight alone (the input is
// the batch), as many again.
TEST(ExportFlops, ATransposedConvolutionCountsOnItsInputsSize) {
  Graph g;
  g.input("x").input("w").shape("x", {1, 64, 16, 16}).shape("w", {64, 32, 4, 4}).shape("y", {1, 32, 32, 32});
  g.node("torch.ops.aten.conv_transpose2d.input",
         {{"input", tensor("x")},
          {"weight", tensor("w")},
          {"bias", kNone},
          {"stride", ints({2, 2})},
          {"padding", ints({1, 1})},
          {"output_padding", ints({0, 0})},
          {"groups", size(1)},
          {"dilation", ints({1, 1})}},
         {tensor("y")});
  const auto flops = count_graph_flops(g.graph(), {}, {"w"});
  EXPECT_DOUBLE_EQ(flops.forward, 2 * 8'388'608.0);
  EXPECT_DOUBLE_EQ(flops.backward, 2 * 8'388'608.0);
  EXPECT_TRUE(flops.uncounted.empty());
}

// conv2d's "padding" overload (padding="same") and convolution.default count as conv2d does.
TEST(ExportFlops, EveryOverloadOfAConvolutionIsCounted) {
  Graph g;
  g.input("x").input("w").shape("x", {1, 3, 8, 8}).shape("w", {8, 3, 3, 3});
  g.shape("a", {1, 8, 8, 8}).shape("b", {1, 8, 8, 8});
  g.node("torch.ops.aten.conv2d.padding",
         {{"input", tensor("x")}, {"weight", tensor("w")}, {"padding", {{"as_string", "same"}}}},
         {tensor("a")});
  g.node("torch.ops.aten.convolution.default",
         {{"input", tensor("x")}, {"weight", tensor("w")}, {"transposed", {{"as_bool", false}}}},
         {tensor("b")});
  const auto flops = count_graph_flops(g.graph(), {}, {});
  EXPECT_DOUBLE_EQ(flops.forward, 2 * 2 * (8 * 8 * 8) * 27.0);
  EXPECT_DOUBLE_EQ(flops.backward, 0);  // neither the batch nor a frozen weight takes a gradient
}

// baddbmm and an einsum of two operands count as the batched products they are; each operand that needs a
// gradient costs its forward again.
TEST(ExportFlops, ProductsCountAGradientPerOperandThatNeedsOne) {
  Graph g;
  g.input("a").input("b").input("c").shape("a", {2, 3, 4}).shape("b", {2, 4, 5}).shape("c", {2, 3, 5});
  g.shape("d", {2, 3, 5}).shape("e", {2, 3, 5});
  g.node("torch.ops.aten.baddbmm.default",
         {{"self", tensor("c")}, {"batch1", tensor("a")}, {"batch2", tensor("b")}}, {tensor("d")});
  g.node("torch.ops.aten.einsum.default",
         {{"equation", {{"as_string", "bij, bjk -> bik"}}},
          {"tensors", {{"as_tensors", {{{"name", "a"}}, {{"name", "b"}}}}}}},
         {tensor("e")});
  const auto flops = count_graph_flops(g.graph(), {}, {"a"});
  EXPECT_DOUBLE_EQ(flops.forward, 2 * 240.0);
  EXPECT_DOUBLE_EQ(flops.backward, 2 * 240.0);
  EXPECT_DOUBLE_EQ(count_graph_flops(g.graph(), {}, {"a", "b"}).backward, 4 * 240.0);
}

// Attention's backward recomputes the scores and takes four more products: 2.5x its forward.
TEST(ExportFlops, AttentionsBackwardIsTwoAndAHalfTimesItsForward) {
  Graph g;
  g.input("q").shape("q", {1, 2, 8, 4}).shape("o", {1, 2, 8, 4});
  g.node("torch.ops.aten._scaled_dot_product_flash_attention_for_cpu.default",
         {{"query", tensor("q")}, {"key", tensor("q")}, {"value", tensor("q")}}, {tensor("o")});
  const auto flops = count_graph_flops(g.graph(), {}, {"q"});
  EXPECT_DOUBLE_EQ(flops.forward, 2 * 2 * 8 * 8 * (4 + 4.0));
  EXPECT_DOUBLE_EQ(flops.backward, 2.5 * flops.forward);
}

json nested(const std::vector<std::string>& inputs, const json& nodes, const json& values,
            const std::string& output) {
  json graph{
      {"inputs", json::array()}, {"outputs", {tensor(output)}}, {"nodes", nodes}, {"tensor_values", values}};
  for (const auto& input : inputs) graph["inputs"].push_back(tensor(input));
  return {{"as_graph", {{"name", "submod"}, {"graph", graph}}}};
}

// A product inside an autocast region counts; one inside a region without grad takes no gradient.
TEST(ExportFlops, NestedGraphsAreCountedUnderTheirGradMode) {
  const json values{{"a", {{"sizes", {size(2), size(4)}}}},
                    {"v", {{"sizes", {size(3), size(4)}}}},
                    {"lin", {{"sizes", {size(2), size(3)}}}}};
  const json body = json::array(
      {{{"target", "torch.ops.aten.linear.default"},
        {"inputs", {{{"name", "input"}, {"arg", tensor("a")}}, {{"name", "weight"}, {"arg", tensor("v")}}}},
        {"outputs", {tensor("lin")}}}});
  Graph g;
  g.input("x").input("w").shape("x", {2, 4}).shape("w", {3, 4}).shape("y", {2, 3}).shape("z", {2, 3});
  g.node("torch.ops.higher_order.wrap_with_autocast",
         {{"", {{"as_string", "cpu"}}},
          {"", kNone},
          {"", {{"as_bool", true}}},
          {"", {{"as_bool", true}}},
          {"", nested({"a", "v"}, body, values, "lin")},
          {"", tensor("x")},
          {"", tensor("w")}},
         {tensor("y")});
  g.node("torch.ops.higher_order.wrap_with_set_grad_enabled",
         {{"", {{"as_bool", false}}},
          {"", nested({"a", "v"}, body, values, "lin")},
          {"", tensor("x")},
          {"", tensor("w")}},
         {tensor("z")});
  const auto flops = count_graph_flops(g.graph(), {}, {"w"});
  EXPECT_DOUBLE_EQ(flops.forward, 2 * (2 * 2 * 4 * 3.0));
  EXPECT_DOUBLE_EQ(flops.backward, 2 * 2 * 4 * 3.0);  // the weight's gradient, in the autocast region only
}

// A sequence length exported at 64 and trained at 512 is counted at 512.
TEST(ExportFlops, ADynamicDimensionIsCountedAtTheRunsSize) {
  Graph g;
  g.input("x").input("w");
  g.sizes("x", {symbol("s0", 2), symbol("s1", 64), size(32)}).shape("w", {16, 32});
  g.sizes("y", {symbol("s0", 2), symbol("s1", 64), size(16)});
  g.node("torch.ops.aten.linear.default", {{"input", tensor("x")}, {"weight", tensor("w")}}, {tensor("y")});
  const auto symbols = ampbench::models::input_symbols(g.graph()["tensor_values"]["x"]["sizes"], {512, 32});
  EXPECT_EQ(symbols, (SymbolValues{{"s0", 1}, {"s1", 512}}));
  EXPECT_DOUBLE_EQ(count_graph_flops(g.graph(), symbols, {}).forward, 2 * 512 * 32 * 16.0);
}

TEST(ExportFlops, SizesWrittenAsExpressionsAreEvaluated) {
  using ampbench::models::size_value;
  const SymbolValues symbols{{"s0", 6}, {"s1", 4}};
  auto expression = [](const std::string& text) { return json{{"as_expr", {{"expr_str", text}}}}; };
  const std::string s0 = "Symbol('s0', positive=True, integer=True)", s1 = "Symbol('s1', integer=True)";
  EXPECT_EQ(size_value(expression("Add(" + s0 + ", Integer(1))"), symbols), 7);
  EXPECT_EQ(size_value(expression("Mul(Integer(2), " + s0 + ", " + s1 + ")"), symbols), 48);
  EXPECT_EQ(size_value(expression("FloorDiv(" + s0 + ", Integer(4))"), symbols), 1);
  EXPECT_EQ(size_value(expression("Max(Integer(1), Add(" + s1 + ", Integer(-5)))"), symbols), 1);
  EXPECT_EQ(size_value(expression("Pow(" + s1 + ", Integer(2))"), symbols), 16);
  EXPECT_EQ(size_value(expression("Symbol('u0', integer=True)"), symbols), std::nullopt);  // no value
  EXPECT_EQ(size_value(expression("Rational(1, 2)"), symbols), std::nullopt);              // not read
}

// What cannot be counted is named, not counted as zero: an einsum of three operands, a size the run's
// values do not give (an unbacked SymInt, which has no hint either).
TEST(ExportFlops, OpsThatCannotBeCountedAreNamed) {
  Graph g;
  g.input("a").shape("a", {2, 2}).shape("e", {2, 2}).shape("m", {2, 2});
  g.sizes("u", {json{{"as_expr", {{"expr_str", "Symbol('u0', integer=True)"}}}}, size(2)});
  const json three_operands{{"as_tensors", json::array({{{"name", "a"}}, {{"name", "a"}}, {{"name", "a"}}})}};
  g.node("torch.ops.aten.einsum.default",
         {{"equation", {{"as_string", "ij,jk,kl->il"}}}, {"tensors", three_operands}}, {tensor("e")});
  g.node("torch.ops.aten.mm.default", {{"self", tensor("u")}, {"mat2", tensor("a")}}, {tensor("m")});
  const auto flops = count_graph_flops(g.graph(), {}, {});
  EXPECT_EQ(flops.uncounted,
            (std::vector<std::string>{"node \"e\" (aten.einsum.default): 3 operands",
                                      "node \"m\" (aten.mm.default): a size the run's values do not give"}));
  EXPECT_DOUBLE_EQ(flops.forward, 0);
}

// An LSTM, a GRU or a plain RNN is one op whose products are not counted: each is named, whatever overload.
TEST(ExportFlops, ARecurrentLayerIsNamedAsUncounted) {
  Graph g;
  g.input("x").shape("x", {4, 8, 16}).shape("out", {4, 8, 32});
  for (const auto* target :
       {"torch.ops.aten.lstm.input", "torch.ops.aten.gru.input", "torch.ops.aten.rnn_tanh.input"})
    g.node(target, {{"input", tensor("x")}}, {tensor("out")});
  const auto flops = count_graph_flops(g.graph(), {}, {});
  const std::string why = ": a recurrent layer's gate products, every time step, are not counted";
  EXPECT_EQ(flops.uncounted, (std::vector<std::string>{"node \"out\" (aten.lstm.input)" + why,
                                                       "node \"out\" (aten.gru.input)" + why,
                                                       "node \"out\" (aten.rnn_tanh.input)" + why}));
  EXPECT_DOUBLE_EQ(flops.forward, 0);
}

}  // namespace
