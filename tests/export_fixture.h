#pragma once

// Writes torch.export archives in C++, as torch.export.save lays them out (models/<name>.json,
// data/weights/<name>_weights_config.json and a record per weight), from a program built node by node: the
// unit tests plant every kind of archive the exported model reads or refuses without Python.
#include <filesystem>
#include <string>
#include <vector>

#include <caffe2/serialize/inline_container.h>
#include <torch/torch.h>
#include <nlohmann/json.hpp>

namespace ampbench::testing {

using nlohmann::json;

inline json tensor_argument(const std::string& name) { return {{"as_tensor", {{"name", name}}}}; }

// A size of the example the program was "exported" with; a batch dimension is symbolic.
inline json static_size(int64_t size) { return {{"as_int", size}}; }
inline json batch_size(int64_t hint) {
  return {
      {"as_expr", {{"expr_str", "Symbol('s0', positive=True, integer=True)"}, {"hint", {{"as_int", hint}}}}}};
}

// torch.export's TensorMeta, contiguous, of dtype 7 (float) unless told.
inline json tensor_meta(const std::vector<json>& sizes, int dtype = 7, bool requires_grad = false) {
  std::vector<json> strides(sizes.size(), static_size(1));
  int64_t stride = 1;
  for (size_t i = sizes.size(); i-- > 0;) {
    strides[i] = static_size(stride);
    stride *= sizes[i].contains("as_int") ? sizes[i].at("as_int").get<int64_t>() : 1;
  }
  return {{"dtype", dtype},
          {"sizes", sizes},
          {"requires_grad", requires_grad},
          {"device", {{"type", "cpu"}, {"index", nullptr}}},
          {"strides", strides},
          {"storage_offset", static_size(0)},
          {"layout", 7}};
}

inline std::vector<json> sizes_of(const torch::Tensor& tensor) {
  std::vector<json> sizes;
  for (const auto size : tensor.sizes()) sizes.push_back(static_size(size));
  return sizes;
}

class ProgramBuilder {
 public:
  // A parameter or buffer "fc.weight", read by the graph as p_fc_weight / b_fc_weight.
  // A frozen parameter's metadata says requires_grad false, as torch.export writes it.
  std::string state(const std::string& name, const torch::Tensor& value, bool parameter,
                    bool frozen = false) {
    auto input = std::string(parameter ? "p_" : "b_") + name;
    std::replace(input.begin(), input.end(), '.', '_');
    graph_["inputs"].push_back(tensor_argument(input));
    graph_["tensor_values"][input] = tensor_meta(sizes_of(value), dtype_of(value));
    const char* kind = parameter ? "parameter" : "buffer";
    json spec{{"arg", {{"name", input}}}, {std::string(kind) + "_name", name}};
    if (!parameter) spec["persistent"] = true;
    input_specs_.push_back({{kind, spec}});
    weights_.emplace_back(name, value, parameter, parameter && !frozen);
    return input;
  }
  void user_input(const std::string& name, const std::vector<json>& sizes, int dtype = 7) {
    graph_["inputs"].push_back(tensor_argument(name));
    graph_["tensor_values"][name] = tensor_meta(sizes, dtype);
    input_specs_.push_back({{"user_input", {{"arg", tensor_argument(name)}}}});
  }
  // A node of `target` ("torch.ops.aten.relu.default") with named arguments, defining a tensor `output`.
  void node(const std::string& target, const std::vector<std::pair<std::string, json>>& arguments,
            const std::string& output, const std::vector<json>& output_sizes, int dtype = 7) {
    json inputs = json::array();
    for (const auto& [name, argument] : arguments)
      inputs.push_back({{"name", name}, {"arg", argument}, {"kind", 1}});
    graph_["nodes"].push_back({{"target", target},
                               {"inputs", inputs},
                               {"outputs", {tensor_argument(output)}},
                               {"metadata", json::object()}});
    graph_["tensor_values"][output] = tensor_meta(output_sizes, dtype);
  }
  void output(const std::string& name) {
    graph_["outputs"].push_back(tensor_argument(name));
    output_specs_.push_back({{"user_output", {{"arg", tensor_argument(name)}}}});
  }
  json program() const {
    return {{"graph_module",
             {{"graph", graph_},
              {"signature", {{"input_specs", input_specs_}, {"output_specs", output_specs_}}},
              {"module_call_graph", json::array()},
              {"metadata", json::object()}}},
            {"opset_version", {{"aten", 10}}},
            {"range_constraints", json::object()},
            {"schema_version", {{"major", 8}, {"minor", 20}}},
            {"verifiers", json::array()},
            {"torch_version", "2.13.0+test"}};
  }
  // Writes the archive; `weights_config` may be changed first (a planted fault), `short_by` bytes are left
  // off the last weight's record.
  void write(const std::filesystem::path& path, const json& program, size_t short_by = 0,
             const std::function<void(json&)>& change_weights = {}) const {
    caffe2::serialize::PyTorchStreamWriter writer(path.string());
    const auto text = program.dump();
    writer.writeRecord("models/model.json", text.data(), text.size());
    json config{{"config", json::object()}};
    for (size_t i = 0; i < weights_.size(); ++i) {
      const auto& [name, value, parameter, trainable] = weights_[i];
      config["config"][name] = {{"path_name", "weight_" + std::to_string(i)},
                                {"is_param", parameter},
                                {"use_pickle", false},
                                {"tensor_meta", tensor_meta(sizes_of(value), dtype_of(value), trainable)}};
      const auto bytes = value.contiguous();
      const size_t size = bytes.nbytes() - (i + 1 == weights_.size() ? short_by : 0);
      writer.writeRecord("data/weights/weight_" + std::to_string(i), bytes.data_ptr(), size);
    }
    if (change_weights) change_weights(config);
    const auto config_text = config.dump();
    writer.writeRecord("data/weights/model_weights_config.json", config_text.data(), config_text.size());
    writer.writeEndOfFile();
  }
  void write(const std::filesystem::path& path) const { write(path, program()); }

 private:
  static int dtype_of(const torch::Tensor& value) {
    return value.scalar_type() == torch::kLong ? 5 : value.scalar_type() == torch::kInt ? 4 : 7;
  }

  json graph_{{"inputs", json::array()},          {"outputs", json::array()},
              {"nodes", json::array()},           {"tensor_values", json::object()},
              {"sym_int_values", json::object()}, {"sym_bool_values", json::object()},
              {"is_single_tensor_return", false}};
  json input_specs_ = json::array();
  json output_specs_ = json::array();
  std::vector<std::tuple<std::string, torch::Tensor, bool, bool>>
      weights_;  // name, value, parameter, trainable
};

// An exported MLP written to `archive`: x [batch, features] -> linear (body) "hidden" [batch, width] -> relu
// "activated" -> linear (head) "scores" [batch, classes]; head's weights a tenth of body's scale.
inline void write_two_linear_program(const std::filesystem::path& archive, int64_t features, int64_t width,
                                     int64_t classes) {
  const auto sizes = [](int64_t columns) { return std::vector<json>{batch_size(2), static_size(columns)}; };
  ProgramBuilder b;
  const auto w0 = b.state("body.weight", torch::randn({width, features}), true);
  const auto b0 = b.state("body.bias", torch::zeros({width}), true);
  const auto w1 = b.state("head.weight", torch::randn({classes, width}) * 0.1, true);
  const auto b1 = b.state("head.bias", torch::zeros({classes}), true);
  b.user_input("x", sizes(features));
  const std::string linear = "torch.ops.aten.linear.default";
  b.node(linear,
         {{"input", tensor_argument("x")}, {"weight", tensor_argument(w0)}, {"bias", tensor_argument(b0)}},
         "hidden", sizes(width));
  b.node("torch.ops.aten.relu.default", {{"self", tensor_argument("hidden")}}, "activated", sizes(width));
  b.node(linear,
         {{"input", tensor_argument("activated")},
          {"weight", tensor_argument(w1)},
          {"bias", tensor_argument(b1)}},
         "scores", sizes(classes));
  b.output("scores");
  b.write(archive);
}

}  // namespace ampbench::testing
