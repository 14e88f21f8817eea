#pragma once

#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/symbolic_sizes.h"

namespace ampbench::models {

// The matrix FLOPs of one training step of a torch.export graph, op by op as torch.utils.flop_counter
// counts them: mm, addmm, bmm, baddbmm, _scaled_mm, convolutions (transposed ones on their input's size),
// attention (its fused variants too); the ops a program keeps before decomposition as what they decompose
// into (linear, matmul, einsum of two operands, convNd and conv_transposeNd of every overload,
// scaled_dot_product_attention); nested graphs included.
struct GraphFlops {
  double forward = 0;
  // Per op, the products of the gradients its operands need, by flop_counter's backward rules: a product's
  // gradient for each operand that needs one (its forward's FLOPs each), a convolution's for its input and
  // its weight, attention's five products (2.5x its forward) when any operand needs one.
  double backward = 0;
  // The ops whose FLOPs could not be counted ("node \"einsum\" (aten.einsum.default): 3 operands"), which
  // the totals leave out.
  std::vector<std::string> uncounted;
};

// Counts `graph` (schema.yaml's Graph) with its sizes at `symbols`' values; `needs_grad` names its inputs
// whose gradients the step computes (the trainable parameters), from which the values that need them
// follow (not inside a region without grad, not of an integer type).
GraphFlops count_graph_flops(const nlohmann::json& graph, const SymbolValues& symbols,
                             const std::set<std::string>& needs_grad);

}  // namespace ampbench::models
