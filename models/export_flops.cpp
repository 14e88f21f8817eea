#include "models/export_flops.h"

#include <functional>
#include <map>
#include <numeric>
#include <optional>

#include "models/export_enums.h"

namespace ampbench::models {
namespace {

using nlohmann::json;
using Sizes = std::vector<int64_t>;

constexpr std::string_view kAtenPrefix = "torch.ops.aten.";

double numel(const Sizes& sizes) {
  return std::accumulate(sizes.begin(), sizes.end(), 1.0, [](double a, int64_t b) { return a * double(b); });
}

// One op's FLOPs, or why they could not be counted.
struct OpFlops {
  double forward = 0, backward = 0;
  std::optional<std::string> uncounted;
};

OpFlops uncounted(std::string why) { return {0, 0, std::move(why)}; }
const OpFlops kNoSizes = uncounted("a size the run's values do not give");

// A node as the counters read it: its arguments by name, the sizes of its tensors at the run's values, and
// which of them need gradients.
class NodeView {
 public:
  NodeView(const json& node, const json& tensor_values, const SymbolValues& symbols,
           const std::set<std::string>& needs_grad)
      : node_(node), values_(tensor_values), symbols_(symbols), needs_grad_(needs_grad) {}

  const json* argument(const std::string& name) const {
    for (const auto& input : node_.at("inputs"))
      if (input.value("name", "") == name) return &input.at("arg");
    return nullptr;
  }
  // The tensor an argument names; "" when it names none.
  std::string tensor(const std::string& name) const {
    const auto* arg = argument(name);
    return arg && arg->contains("as_tensor") ? arg->at("as_tensor").value("name", "") : "";
  }
  std::optional<Sizes> sizes_of(const std::string& tensor) const {
    return tensor.empty() ? std::nullopt : tensor_sizes(values_, tensor, symbols_);
  }
  std::optional<Sizes> sizes(const std::string& argument_name) const {
    return sizes_of(tensor(argument_name));
  }
  std::optional<Sizes> output() const {
    const auto& outputs = node_.at("outputs");
    if (outputs.empty() || !outputs.front().contains("as_tensor")) return std::nullopt;
    return sizes_of(outputs.front().at("as_tensor").value("name", ""));
  }
  bool needs_grad_of(const std::string& tensor) const { return needs_grad_.contains(tensor); }
  int needs_grad(const std::string& argument_name) const {
    return needs_grad_of(tensor(argument_name)) ? 1 : 0;
  }

 private:
  const json& node_;
  const json& values_;
  const SymbolValues& symbols_;
  const std::set<std::string>& needs_grad_;
};

// A product whose output elements each sum over the first operand's last dimension (its only one when 1-D):
// mm, bmm, addmm, baddbmm, matmul, _scaled_mm. Its backward: one product of the same size per operand that
// needs a gradient.
OpFlops product(const NodeView& n, const std::string& first, const std::string& second) {
  const auto a = n.sizes(first), out = n.output();
  if (!a || !out || a->empty()) return kNoSizes;
  const double forward = 2 * numel(*out) * double(a->back());
  return {forward, forward * (n.needs_grad(first) + n.needs_grad(second)), std::nullopt};
}

// linear(input, weight): input's rows by weight's [out, in].
OpFlops linear(const NodeView& n) {
  const auto x = n.sizes("input"), w = n.sizes("weight");
  if (!x || !w || w->size() != 2) return kNoSizes;
  const double forward = 2 * numel(*x) * double((*w)[0]);
  return {forward, forward * (n.needs_grad("input") + n.needs_grad("weight")), std::nullopt};
}

// addbmm: the batch's products summed into one matrix.
OpFlops summed_batch_product(const NodeView& n) {
  const auto a = n.sizes("batch1"), b = n.sizes("batch2");
  if (!a || !b || b->empty()) return kNoSizes;
  const double forward = 2 * numel(*a) * double(b->back());
  return {forward, forward * (n.needs_grad("batch1") + n.needs_grad("batch2")), std::nullopt};
}

// A convolution: each output element convolves a group's input channels with the kernel; a transposed one
// does so for each element of its input, as flop_counter counts it. Its backward: the input's gradient and
// the weight's, each the forward's size, for those that need one.
OpFlops convolution(const NodeView& n, bool transposed) {
  const auto x = n.sizes("input"), w = n.sizes("weight"), out = n.output();
  if (!x || !w || !out || w->size() < 3 || (*w)[0] == 0) return kNoSizes;
  const size_t channels = x->size() - (w->size() - 2) - 1;  // an unbatched input has no batch dimension
  if (channels >= x->size() || (*x)[channels] == 0) return kNoSizes;
  const double forward = transposed ? 2 * numel(*x) / double((*x)[channels]) * numel(*w)
                                    : 2 * numel(*out) * numel(*w) / double((*w)[0]);
  return {forward, forward * (n.needs_grad("input") + n.needs_grad("weight")), std::nullopt};
}

OpFlops convolution_with_flag(const NodeView& n) {
  const auto* flag = n.argument("transposed");
  if (!flag || !flag->contains("as_bool")) return uncounted("a transposed flag that is not a constant");
  return convolution(n, flag->at("as_bool").get<bool>());
}

// Attention: scores (s_q x s_k over d_q) and their weighted sum of values (over s_k), per batch and head.
// Its backward recomputes the scores and takes four more products of that size: 2.5x the forward when the
// head sizes agree.
OpFlops attention(const NodeView& n) {
  const auto q = n.sizes("query"), k = n.sizes("key"), v = n.sizes("value");
  if (!q || !k || !v || q->size() < 2 || k->size() < 2 || v->empty()) return kNoSizes;
  const double s_q = double((*q)[q->size() - 2]), d_q = double(q->back());
  const double s_k = double((*k)[k->size() - 2]), d_v = double(v->back());
  if (s_q == 0 || d_q == 0) return {0, 0, std::nullopt};
  const double heads = numel(*q) / (s_q * d_q);  // batch x heads: the query's leading dimensions
  const double forward = 2 * heads * s_q * s_k * (d_q + d_v);
  const bool backward = n.needs_grad("query") || n.needs_grad("key") || n.needs_grad("value");
  return {forward, backward ? 2 * heads * s_q * s_k * (3 * d_q + 2 * d_v) : 0, std::nullopt};
}

// einsum of two operands ("bij,bjk->bik"), as the batched product it decomposes into: over every index of
// the output and every index the two share.
OpFlops einsum(const NodeView& n) {
  const auto* equation = n.argument("equation");
  const auto* tensors = n.argument("tensors");
  if (!equation || !tensors || !tensors->contains("as_tensors")) return uncounted("operands not as written");
  const auto& operands = tensors->at("as_tensors");
  if (operands.size() != 2) return uncounted(std::to_string(operands.size()) + " operands");
  std::string text;
  for (const char c : equation->at("as_string").get<std::string>())
    if (c != ' ') text += c;
  const auto arrow = text.find("->"), comma = text.find(',');
  if (arrow == std::string::npos || comma == std::string::npos || text.find("...") != std::string::npos)
    return uncounted("an equation without an explicit output, or with an ellipsis");
  const std::string a = text.substr(0, comma), b = text.substr(comma + 1, arrow - comma - 1);
  const std::string output = text.substr(arrow + 2);
  const std::string a_name = operands[0].value("name", ""), b_name = operands[1].value("name", "");
  const auto a_sizes = n.sizes_of(a_name), b_sizes = n.sizes_of(b_name);
  if (!a_sizes || !b_sizes || a_sizes->size() != a.size() || b_sizes->size() != b.size()) return kNoSizes;
  std::map<char, int64_t> size;
  for (size_t i = 0; i < a.size(); ++i) size[a[i]] = (*a_sizes)[i];
  for (size_t i = 0; i < b.size(); ++i) size[b[i]] = (*b_sizes)[i];
  double forward = 2;
  for (const auto& [index, extent] : size) {
    const bool shared = a.find(index) != std::string::npos && b.find(index) != std::string::npos;
    if (shared || output.find(index) != std::string::npos) forward *= double(extent);
  }
  const int grads = (n.needs_grad_of(a_name) ? 1 : 0) + (n.needs_grad_of(b_name) ? 1 : 0);
  return {forward, forward * grads, std::nullopt};
}

using Counter = std::function<OpFlops(const NodeView&)>;

// The counted ops by name, any overload.
const std::map<std::string, Counter>& counters() {
  auto product_of = [](std::string first, std::string second) {
    return [first, second](const NodeView& n) { return product(n, first, second); };
  };
  auto conv = [](bool transposed) {
    return [transposed](const NodeView& n) { return convolution(n, transposed); };
  };
  // A recurrent layer's products (its gates times the input and the hidden state, every time step) hide in
  // one op that flop_counter does not count either: named, so that TFLOP/s is read as the lower bound it is.
  const Counter recurrent = [](const NodeView&) {
    return uncounted("a recurrent layer's gate products, every time step, are not counted");
  };
  static const std::map<std::string, Counter> table{
      {"mm", product_of("self", "mat2")},
      {"bmm", product_of("self", "mat2")},
      {"matmul", product_of("self", "other")},
      {"_scaled_mm", product_of("self", "mat2")},
      {"addmm", product_of("mat1", "mat2")},
      {"baddbmm", product_of("batch1", "batch2")},
      {"addbmm", summed_batch_product},
      {"linear", linear},
      {"einsum", einsum},
      {"conv1d", conv(false)},
      {"conv2d", conv(false)},
      {"conv3d", conv(false)},
      {"mkldnn_convolution", conv(false)},
      {"cudnn_convolution", conv(false)},
      {"conv_transpose1d", conv(true)},
      {"conv_transpose2d", conv(true)},
      {"conv_transpose3d", conv(true)},
      {"cudnn_convolution_transpose", conv(true)},
      {"convolution", convolution_with_flag},
      {"_convolution", convolution_with_flag},
      {"convolution_overrideable", convolution_with_flag},
      {"scaled_dot_product_attention", attention},
      {"_scaled_dot_product_attention_math", attention},
      {"_scaled_dot_product_flash_attention", attention},
      {"_scaled_dot_product_flash_attention_for_cpu", attention},
      {"_scaled_dot_product_efficient_attention", attention},
      {"_scaled_dot_product_cudnn_attention", attention},
      {"_scaled_dot_product_fused_attention_overrideable", attention},
      {"lstm", recurrent},
      {"gru", recurrent},
      {"rnn_tanh", recurrent},
      {"rnn_relu", recurrent},
      {"lstm_cell", recurrent},
      {"gru_cell", recurrent},
      {"rnn_tanh_cell", recurrent},
      {"rnn_relu_cell", recurrent},
      {"_thnn_fused_lstm_cell", recurrent},
      {"_thnn_fused_gru_cell", recurrent},
      {"mkldnn_rnn_layer", recurrent},
      {"_cudnn_rnn", recurrent}};
  return table;
}

// "aten.linear.default" -> "linear".
std::string op_name(const std::string& target) {
  auto rest = target.substr(kAtenPrefix.size());
  return rest.substr(0, rest.rfind('.'));
}

// The tensors an input or output names (a tensor, or each of a list's).
std::vector<std::string> tensors_named(const json& argument) {
  std::vector<std::string> names;
  if (argument.contains("as_tensor")) names.push_back(argument.at("as_tensor").value("name", ""));
  for (const auto* kind : {"as_tensors", "as_optional_tensors"}) {
    if (!argument.contains(kind)) continue;
    for (const auto& element : argument.at(kind)) {
      if (element.contains("name")) names.push_back(element.at("name").get<std::string>());
      if (element.contains("as_tensor")) names.push_back(element.at("as_tensor").value("name", ""));
    }
  }
  return names;
}

// Integer and bool results take no gradient (torch.export's ScalarType numbers).
bool differentiable(const json& tensor_values, const std::string& name) {
  if (!tensor_values.contains(name)) return true;
  const auto dtype = tensor_values.at(name).value("dtype", 7);
  return !(dtype >= 1 && dtype <= 5) && dtype != 12;
}

class GraphCounter {
 public:
  GraphCounter(const SymbolValues& symbols, GraphFlops& out) : symbols_(symbols), out_(out) {}

  // Counts `graph`'s nodes; `needs_grad` holds the values that need gradients. Returns, per graph output,
  // whether it needs one.
  std::vector<bool> count(const json& graph, std::set<std::string> needs_grad, bool grad_enabled) {
    const auto& values = graph.value("tensor_values", json::object());
    for (const auto& node : graph.at("nodes")) {
      const auto target = node.at("target").get<std::string>();
      std::vector<bool> outputs_grad;
      if (target.starts_with(kHigherOrderPrefix)) {
        outputs_grad = count_nested(node, target, needs_grad, grad_enabled);
      } else {
        const bool any_grad = grad_enabled && reads_grad(node, needs_grad);
        if (target.starts_with(kAtenPrefix)) count_op(node, target, values, needs_grad, grad_enabled);
        outputs_grad.assign(node.at("outputs").size(), any_grad);
      }
      mark_outputs(node, outputs_grad, values, needs_grad);
    }
    std::vector<bool> outputs;
    for (const auto& output : graph.at("outputs")) {
      const auto names = tensors_named(output);
      outputs.push_back(!names.empty() && needs_grad.contains(names.front()));
    }
    return outputs;
  }

 private:
  static bool reads_grad(const json& node, const std::set<std::string>& needs_grad) {
    for (const auto& input : node.at("inputs"))
      for (const auto& name : tensors_named(input.at("arg")))
        if (needs_grad.contains(name)) return true;
    return false;
  }

  void count_op(const json& node, const std::string& target, const json& values,
                const std::set<std::string>& needs_grad, bool grad_enabled) {
    const auto found = counters().find(op_name(target));
    if (found == counters().end()) return;
    static const std::set<std::string> none;
    const auto flops = found->second(NodeView(node, values, symbols_, grad_enabled ? needs_grad : none));
    if (flops.uncounted) {
      out_.uncounted.push_back("node \"" + node_name(node) + "\" (" + target.substr(10) +
                               "): " + *flops.uncounted);
      return;
    }
    out_.forward += flops.forward;
    out_.backward += flops.backward;
  }

  // wrap_with_set_grad_enabled(enabled, graph, *operands) and wrap_with_autocast(device, dtype, enabled,
  // cache_enabled, graph, *operands): the nested graph counted with its operands' gradients.
  std::vector<bool> count_nested(const json& node, const std::string& target,
                                 const std::set<std::string>& needs_grad, bool grad_enabled) {
    const auto& inputs = node.at("inputs");
    const bool grad_mode = target.ends_with("wrap_with_set_grad_enabled");
    const size_t graph_at = grad_mode ? 1 : 4;
    if (inputs.size() <= graph_at || !inputs[graph_at].at("arg").contains("as_graph")) return {};
    const auto& nested = inputs[graph_at].at("arg").at("as_graph").at("graph");
    if (grad_mode) grad_enabled = grad_enabled && inputs[0].at("arg").value("as_bool", true);
    std::set<std::string> nested_grad;
    const auto& nested_inputs = nested.at("inputs");
    for (size_t i = graph_at + 1, j = 0; i < inputs.size() && j < nested_inputs.size(); ++i, ++j) {
      const auto operand = tensors_named(inputs[i].at("arg")), input = tensors_named(nested_inputs[j]);
      if (!operand.empty() && !input.empty() && needs_grad.contains(operand.front()))
        nested_grad.insert(input.front());
    }
    return count(nested, nested_grad, grad_enabled);
  }

  static void mark_outputs(const json& node, const std::vector<bool>& outputs_grad, const json& values,
                           std::set<std::string>& needs_grad) {
    const auto& outputs = node.at("outputs");
    for (size_t i = 0; i < outputs.size() && i < outputs_grad.size(); ++i) {
      if (!outputs_grad[i]) continue;
      for (const auto& name : tensors_named(outputs[i]))
        if (differentiable(values, name)) needs_grad.insert(name);
    }
  }

  static std::string node_name(const json& node) {
    for (const auto& output : node.at("outputs")) {
      const auto names = tensors_named(output);
      if (!names.empty()) return names.front();
    }
    return "(unnamed)";
  }

  const SymbolValues& symbols_;
  GraphFlops& out_;
};

}  // namespace

GraphFlops count_graph_flops(const json& graph, const SymbolValues& symbols,
                             const std::set<std::string>& needs_grad) {
  GraphFlops out;
  GraphCounter(symbols, out).count(graph, needs_grad, true);
  return out;
}

}  // namespace ampbench::models
