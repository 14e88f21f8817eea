#pragma once

#include <string>
#include <vector>

#include <ATen/core/ivalue.h>

namespace ampbench::models {

// Python's operators on ints, floats and bools, as a graph's symbolic arithmetic calls them
// ("_operator.mul" on a batch size): the arguments in order, the result as Python computes it.
using PythonOperator = c10::IValue (*)(const std::vector<c10::IValue>& arguments);

// The operator a node's target names ("_operator.floordiv", "torch.sym_max"), with the number of arguments
// it takes; nullptr when it is not one ampbench runs.
struct PythonOperatorEntry {
  PythonOperator function = nullptr;
  size_t arity = 0;
};
PythonOperatorEntry find_python_operator(const std::string& target);

}  // namespace ampbench::models
