#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "numerics/phase.h"

namespace ampbench::numerics {

// What the observers record of an op, as plain data: where it ran, its tensors, and the first op that made
// inf or NaN (op_observer.h finds it).

// Where in the model an op ran.
struct OpSite {
  // A reference model's module path ("layers.2") or an exported node's module (its nn_module_stack);
  // "" when no module is known (the loss, the optimizer, an op before the first layer).
  std::string module;
  // True: the op ran in `module` (it read the module's weights, or a cast or view of them, or it is an
  // exported node of that module). False: it has no weights of its own; `module` is the last layer that ran
  // before it.
  bool in_module = false;
  std::string node;  // an exported model: the graph node the op ran in (its forward's node, in backward)
};

struct TensorFacts {
  std::string dtype;  // "fp16", "bf16", "fp32", ... (c10's name for the others)
  std::vector<int64_t> shape;
};

// The first op whose output held inf or NaN.
struct NonFiniteOp {
  Phase phase = Phase::forward;
  std::string op;                            // "aten::addmm"
  std::string backward_node;                 // in backward: the autograd node it ran in ("AddmmBackward0")
  std::vector<TensorFacts> inputs, outputs;  // its tensor arguments and results
  bool made_inf = false, made_nan = false;
  std::optional<double> largest_input;  // the largest finite magnitude among its floating inputs
  // The largest finite value of the dtype it produced the non-finite values in (fp16: 65504).
  std::optional<double> format_max;
  OpSite site;
};

}  // namespace ampbench::numerics
