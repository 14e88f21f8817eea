#pragma once
// The fixture of the exported model's tests: a small MLP program written as torch.export writes one, the
// model type's reader, and a node's JSON.

#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <tuple>

#include <gtest/gtest.h>
#include <torch/torch.h>

#include "models/registry.h"
#include "util/json_reader.h"

#include "export_fixture.h"
#include "temp_dir_test.h"

namespace ampbench::testing {

inline const std::string kLinear = "torch.ops.aten.linear.default";
inline const std::string kRelu = "torch.ops.aten.relu.default";
inline const models::InputSpec kFeatures{{4}, 3, false};

class ExportedModel : public TempDirTest {
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
                                                          const models::InputSpec& input = kFeatures) {
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

// A serialized node's JSON: positional (unnamed) or named arguments, tensor outputs.
inline json node_json(const std::string& target, const std::vector<std::pair<std::string, json>>& arguments,
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

}  // namespace ampbench::testing
