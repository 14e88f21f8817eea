#include "models/exported_program.h"

#include <algorithm>
#include <numeric>

#include "models/export_enums.h"
#include "util/input_error.h"

namespace ampbench::models {
namespace {

using nlohmann::json;
using util::InputError;

bool has_state(const ExportArchive& archive, const std::string& name) {
  auto named = [&](const NamedTensor& tensor) { return tensor.first == name; };
  return std::any_of(archive.weights.begin(), archive.weights.end(), named) ||
         std::any_of(archive.constants.begin(), archive.constants.end(), named);
}

StateInput state_input(const json& spec, const std::string& name_key, const ExportArchive& archive,
                       const ExportGraph& graph) {
  StateInput input{spec.at(name_key).get<std::string>(),
                   graph.slot_of(spec.at("arg").at("name").get<std::string>())};
  if (!has_state(archive, input.name))
    throw InputError("the program reads \"" + input.name +
                     "\", which the archive's weights and constants lack");
  return input;
}

void read_input_specs(const json& specs, const ExportArchive& archive, ExportedProgram& program) {
  const auto& graph = *program.graph;
  for (const auto& spec : specs) {
    std::string kind;
    const auto& value = union_member(spec, kind);
    if (kind == "parameter")
      program.parameters.push_back(state_input(value, "parameter_name", archive, graph));
    else if (kind == "buffer")
      program.buffers.push_back(state_input(value, "buffer_name", archive, graph));
    else if (kind == "tensor_constant")
      program.constants.push_back(state_input(value, "tensor_constant_name", archive, graph));
    else if (kind == "user_input" && value.at("arg").contains("as_tensor")) {
      if (program.batch_input >= 0)
        throw InputError("the program takes two tensors; ampbench gives it one batch");
      program.batch_input = graph.slot_of(value.at("arg").at("as_tensor").at("name").get<std::string>());
    } else {
      throw InputError("the program takes an input of a kind (" + kind + ": " + value.dump() +
                       ") ampbench cannot give");
    }
  }
  if (program.batch_input < 0) throw InputError("the program takes no tensor input");
}

void read_output_specs(const json& specs, ExportedProgram& program) {
  for (const auto& spec : specs) {
    std::string kind;
    const auto& value = union_member(spec, kind);
    if (kind == "user_output" && value.at("arg").contains("as_tensor")) {
      if (program.logits_output >= 0)
        throw InputError("the program returns more than one tensor; ampbench takes logits");
      program.logits_output =
          program.graph->slot_of(value.at("arg").at("as_tensor").at("name").get<std::string>());
    } else if (kind == "buffer_mutation") {
      const auto name = value.at("buffer_name").get<std::string>();
      const auto& buffers = program.buffers;
      if (std::none_of(buffers.begin(), buffers.end(), [&](const StateInput& b) { return b.name == name; }))
        throw InputError("the program updates \"" + name + "\", which is no buffer it reads");
      program.buffer_mutations.push_back(
          {value.at("buffer_name").get<std::string>(),
           program.graph->slot_of(value.at("arg").at("name").get<std::string>())});
    } else {
      throw InputError("the program returns a value of a kind (" + kind + ") ampbench cannot take");
    }
  }
  if (program.logits_output < 0) throw InputError("the program returns no tensor");
}

TensorShape shape_of(const json& tensor_values, const std::string& name) {
  const auto& meta = tensor_values.at(name);
  TensorShape shape;
  shape.dtype = scalar_type_of(meta.at("dtype").get<int64_t>()).value_or(c10::ScalarType::Undefined);
  const auto& sizes = meta.at("sizes");
  for (size_t i = 1; i < sizes.size(); ++i)
    shape.sample.push_back(sizes[i].contains("as_int") ? std::optional(sizes[i].at("as_int").get<int64_t>())
                                                       : std::nullopt);
  return shape;
}

// The program behind compile_program, which turns a malformed document into an InputError.
ExportedProgram compile(const ExportArchive& archive) {
  const auto& module = archive.program.at("graph_module");
  const auto& graph = module.at("graph");
  ExportedProgram program;
  program.graph = std::make_shared<const ExportGraph>(graph);
  read_input_specs(module.at("signature").at("input_specs"), archive, program);
  read_output_specs(module.at("signature").at("output_specs"), program);
  const auto& values = graph.at("tensor_values");
  const auto& input_name = program.graph->name_of(program.batch_input);
  program.input = shape_of(values, input_name);
  program.output = shape_of(values, program.graph->name_of(program.logits_output));
  if (values.at(input_name).at("sizes").empty())
    throw InputError("the program's input \"" + input_name + "\" has no batch dimension");
  return program;
}

}  // namespace

ExportedProgram compile_program(const ExportArchive& archive) {
  try {
    return compile(archive);
  } catch (const json::exception& e) {
    throw InputError("its program is not as torch.export writes it: " + std::string(e.what()));
  }
}

}  // namespace ampbench::models
