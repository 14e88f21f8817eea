#include "models/export_flops.h"

#include <functional>
#include <map>
#include <numeric>

namespace ampbench::models {
namespace {

using nlohmann::json;

double numel(const std::vector<int64_t>& sizes) {
  return std::accumulate(sizes.begin(), sizes.end(), 1.0, [](double a, int64_t b) { return a * double(b); });
}

// The sizes of the tensor a node's argument names, or of its first output.
struct NodeShapes {
  const json& node;
  const json& values;
  std::vector<int64_t> argument(const std::string& name) const {
    for (const auto& input : node.at("inputs")) {
      if (input.at("name") == name && input.at("arg").contains("as_tensor"))
        return example_sizes(values, input.at("arg").at("as_tensor").at("name").get<std::string>());
    }
    return {};
  }
  std::vector<int64_t> output() const {
    const auto& outputs = node.at("outputs");
    if (outputs.empty() || !outputs.front().contains("as_tensor")) return {};
    return example_sizes(values, outputs.front().at("as_tensor").at("name").get<std::string>());
  }
};

// Each output element of a product sums over the shared dimension: the first operand's last.
double product_macs(const NodeShapes& shapes, const std::string& first) {
  const auto a = shapes.argument(first);
  return a.empty() ? 0 : numel(shapes.output()) * double(a.back());
}

// Each output element of a convolution sums over a group's input channels times the kernel.
double convolution_macs(const NodeShapes& shapes) {
  const auto weight = shapes.argument("weight");
  return weight.empty() ? 0 : numel(shapes.output()) * numel(weight) / double(weight.front());
}

// Scores (L x S per query row, over E) and the weighted sum of values (over S).
double attention_macs(const NodeShapes& shapes) {
  const auto key = shapes.argument("key");
  if (key.size() < 2) return 0;
  const double keys = double(key[key.size() - 2]);
  return numel(shapes.argument("query")) * keys + numel(shapes.output()) * keys;
}

}  // namespace

std::vector<int64_t> example_sizes(const json& tensor_values, const std::string& name) {
  std::vector<int64_t> sizes;
  if (!tensor_values.contains(name)) return sizes;
  for (const auto& size : tensor_values.at(name).at("sizes")) {
    if (size.contains("as_int"))
      sizes.push_back(size.at("as_int").get<int64_t>());
    else
      sizes.push_back(size.at("as_expr").at("hint").at("as_int").get<int64_t>());
  }
  return sizes;
}

double export_matrix_macs(const json& graph) {
  using Count = std::function<double(const NodeShapes&)>;
  static const std::map<std::string, Count> counts{
      {"linear.default", [](const NodeShapes& s) { return product_macs(s, "input"); }},
      {"matmul.default", [](const NodeShapes& s) { return product_macs(s, "self"); }},
      {"mm.default", [](const NodeShapes& s) { return product_macs(s, "self"); }},
      {"bmm.default", [](const NodeShapes& s) { return product_macs(s, "self"); }},
      {"addmm.default", [](const NodeShapes& s) { return product_macs(s, "mat1"); }},
      {"conv1d.default", convolution_macs},
      {"conv2d.default", convolution_macs},
      {"conv3d.default", convolution_macs},
      {"convolution.default", convolution_macs},
      {"scaled_dot_product_attention.default", attention_macs}};
  double macs = 0;
  for (const auto& node : graph.at("nodes")) {
    const auto target = node.at("target").get<std::string>();
    if (!target.starts_with("torch.ops.aten.")) continue;
    const auto count = counts.find(target.substr(15));
    if (count != counts.end()) macs += count->second(NodeShapes{node, graph.at("tensor_values")});
  }
  return macs;
}

}  // namespace ampbench::models
