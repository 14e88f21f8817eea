#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <ATen/core/function_schema.h>
#include <ATen/core/ivalue.h>
#include <nlohmann/json.hpp>

namespace ampbench::models {

// A value's place in a graph run's value table (inputs, then what the nodes compute).
using Slot = int32_t;

// One element of an argument: a value the run computes (slot >= 0) or a constant.
struct BoundElement {
  Slot slot = -1;
  c10::IValue constant;
};

// What a run's module state gives the graph where the program fixed what held at export time: the
// module's mode (train() or eval()) and the device its state is on.
struct RunState {
  bool training = true;
  c10::Device device = c10::kCPU;
};

// How one schema argument of a node gets its value on every run; made once, when the graph is compiled.
struct BoundArgument {
  enum class Kind {
    single,
    tensor_list,
    optional_tensor_list,
    int_list,
    float_list,
    bool_list,
    training_flag,
    device
  };
  Kind kind = Kind::single;
  std::vector<BoundElement> elements;  // one for `single`, none for `training_flag`
  // A `training_flag` passes what the program says in train() (a submodule the user put in eval() before
  // exporting stays so), and in eval() false, unless the node keeps it (batch norm without running
  // statistics normalises with the batch's in eval() too, as eager's does).
  bool exported_training = true;
  bool training_in_eval = false;
};

// A serialized union (schema.yaml's Argument, InputSpec, ...: an object of one member): the member's name
// ("as_tensor") into `kind`, its value returned. Throws util::InputError for anything else.
const nlohmann::json& union_member(const nlohmann::json& value, std::string& kind);

// Binds a serialized torch.export Argument (schema.yaml's union, e.g. {"as_tensor": {"name": "x"}}) for
// `schema_argument`; `slot_of` gives a named value's slot. Throws util::InputError (its text names the
// argument's kind, the caller adds the node) for a kind it cannot pass.
BoundArgument bind_argument(const nlohmann::json& argument, const c10::Argument& schema_argument,
                            const std::function<Slot(const std::string&)>& slot_of);

// A schema argument the call leaves out: its default, or InputError when it has none.
BoundArgument bind_default(const c10::Argument& schema_argument);

// The argument's value for this run.
c10::IValue value_of(const BoundArgument& argument, const std::vector<c10::IValue>& values,
                     const RunState& state);

}  // namespace ampbench::models
