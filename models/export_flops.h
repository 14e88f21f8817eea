#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace ampbench::models {

// A tensor's sizes in the example a program was exported with (a symbolic size's hint); empty when the
// graph's metadata does not give them.
std::vector<int64_t> example_sizes(const nlohmann::json& tensor_values, const std::string& name);

// Multiply-adds of one forward pass of a torch.export graph at its example's shapes: every linear, matrix
// product, convolution and attention product its nodes run (nested graphs are not counted).
double export_matrix_macs(const nlohmann::json& graph);

}  // namespace ampbench::models
