#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <torch/torch.h>

#include "models/export_archive.h"
#include "models/export_graph.h"

namespace ampbench::models {

// A graph input that is model state: a parameter, a buffer or a lifted constant, by its name in the
// exported module ("bn.running_mean"), and the slot the graph reads it from.
struct StateInput {
  std::string name;
  Slot slot = -1;
};

// The shape of the program's one user input or output, from the graph's tensor metadata: each dimension
// after the batch, nullopt where it is symbolic (dynamic).
struct TensorShape {
  c10::ScalarType dtype = c10::kFloat;
  std::vector<std::optional<int64_t>> sample;
};

// A torch.export program, compiled and ready to train: its graph, which inputs are state and which the
// batch, what it returns, and the buffers its signature says it mutates.
struct ExportedProgram {
  std::shared_ptr<const ExportGraph> graph;
  std::vector<StateInput> parameters, buffers, constants;
  Slot batch_input = -1;
  Slot logits_output = -1;
  std::vector<StateInput> buffer_mutations;  // the buffer to copy each such output into, after a run
  TensorShape input, output;
};

// Compiles the archive's program. Throws util::InputError for a graph it cannot run (the node, its op and
// the argument named), a signature with an input or output ampbench cannot give or take (a second user
// input, tokens, a user-input mutation, a joint graph's loss), or state the archive lacks.
ExportedProgram compile_program(const ExportArchive& archive);

}  // namespace ampbench::models
