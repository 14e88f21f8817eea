// The "exported" model type: a config's path to a torch.export archive, read and compiled once, checked
// against what the data gives it.
#include <algorithm>
#include <set>
#include <unordered_set>

#include "models/export_flops.h"
#include "models/exported.h"
#include "models/symbolic_sizes.h"
#include "util/input_error.h"

namespace ampbench::models {
namespace {

using util::InputError;

bool takes_tokens(const TensorShape& shape) { return !c10::isFloatingType(shape.dtype); }

std::string dims_text(const std::vector<std::optional<int64_t>>& sample) {
  std::string text = "[N";
  for (const auto& dim : sample) text += ", " + (dim ? std::to_string(*dim) : std::string("*"));
  return text + "]";
}

bool shape_matches(const std::vector<std::optional<int64_t>>& program, const std::vector<int64_t>& data) {
  if (program.size() != data.size()) return false;
  for (size_t i = 0; i < data.size(); ++i)
    if (program[i] && *program[i] != data[i]) return false;
  return true;
}

// The program must take the data's samples and return logits of the task's shape.
void check_input_fits(const ExportedProgram& program, const InputSpec& input) {
  if (takes_tokens(program.input) != input.tokens) {
    throw InputError(
        takes_tokens(program.input)
            ? "the exported program takes token ids: it needs token data (synthetic_tokens or tokens)"
            : "the exported program takes features: token data needs a model that takes token ids");
  }
  if (!shape_matches(program.input.sample, input.sample_shape)) {
    throw InputError("the exported program takes inputs " + dims_text(program.input.sample) +
                     ", the data gives samples of " +
                     dims_text({input.sample_shape.begin(), input.sample_shape.end()}));
  }
  const bool next_token = input.tokens && !input.label_per_sequence;
  auto logits = input.sample_shape;
  if (!next_token) logits.clear();
  logits.push_back(input.num_classes);
  if (!shape_matches(program.output.sample, logits)) {
    throw InputError("the exported program returns " + dims_text(program.output.sample) + ", not logits of " +
                     dims_text({logits.begin(), logits.end()}) + " for the data's " +
                     std::to_string(input.num_classes) + (next_token ? "-token vocabulary" : " classes"));
  }
}

// ampbench trains floating-point parameters towards floating-point logits: an integer parameter (a count
// kept as an nn.Parameter) or an integer output would fail every trial once the run began.
void check_floating(const ExportedProgram& program, const ExportArchive& archive) {
  for (const auto& parameter : program.parameters) {
    for (const auto& [name, tensor] : archive.weights) {
      if (name != parameter.name || c10::isFloatingType(tensor.scalar_type())) continue;
      throw InputError("parameter \"" + name + "\" is " + c10::toString(tensor.scalar_type()) +
                       ": ampbench trains floating-point parameters (keep an integer tensor as a buffer)");
    }
  }
  if (!c10::isFloatingType(program.output.dtype))
    throw InputError("the exported program returns " + std::string(c10::toString(program.output.dtype)) +
                     " values: logits must be floating point");
}

class ExportedSpec final : public ModelSpec {
 public:
  ExportedSpec(std::string path, ExportArchive archive)
      : path_(std::move(path)),
        archive_(std::make_shared<const ExportArchive>(std::move(archive))),
        program_(std::make_shared<const ExportedProgram>(compile_program(*archive_))) {
    check_floating(*program_, *archive_);
  }
  std::shared_ptr<Network> build() const override {
    return std::make_shared<ExportedNetwork>(program_, *archive_);
  }
  // Counted op by op on the program's graph at the run's sizes, forward and backward (export_flops.h).
  TrainFlops train_flops(const InputSpec& input) const override {
    const auto& graph = archive_->program.at("graph_module").at("graph");
    const auto& input_sizes =
        graph.at("tensor_values").at(program_->graph->name_of(program_->batch_input)).at("sizes");
    const auto symbols = input_symbols(input_sizes, input.sample_shape);
    const auto counted = count_graph_flops(graph, symbols, trainable_inputs());
    // A batch the program fixed (a static first dimension) is that many samples.
    const double samples = double(std::max<int64_t>(1, size_value(input_sizes.at(0), symbols).value_or(1)));
    return {(counted.forward + counted.backward) / samples, counted.uncounted};
  }
  ModelSize size() const override {
    ModelSize size;
    std::unordered_set<const c10::TensorImpl*> counted;  // tied weights count once
    for (const auto& [name, tensor] : archive_->weights) {
      if (!counted.insert(tensor.unsafeGetTensorImpl()).second) continue;
      const bool parameter = std::any_of(program_->parameters.begin(), program_->parameters.end(),
                                         [&](const StateInput& input) { return input.name == name; });
      (parameter ? size.parameters : size.buffers) += double(tensor.numel());
    }
    for (const auto& [name, tensor] : archive_->constants) size.buffers += double(tensor.numel());
    return size;
  }
  nlohmann::json options_json() const override { return {{"path", path_}}; }
  std::optional<ArchiveIdentity> archive() const override {
    return ArchiveIdentity{archive_->fingerprint, archive_->torch_version};
  }
  std::optional<InputFit> input_fit() const override {
    const auto& logits = program_->output.sample;
    const bool tokens = takes_tokens(program_->input);
    return InputFit{program_->input.sample, logits.empty() ? std::nullopt : logits.back(), tokens,
                    tokens && logits.size() == program_->input.sample.size() + 1};
  }
  void check_input(const InputSpec& input) const override { check_input_fits(*program_, input); }

 private:
  // The graph's inputs whose gradients a step computes: the trainable parameters.
  std::set<std::string> trainable_inputs() const {
    std::set<std::string> names;
    for (const auto& parameter : program_->parameters) {
      for (const auto& [name, tensor] : archive_->weights)
        if (name == parameter.name && tensor.requires_grad())
          names.insert(program_->graph->name_of(parameter.slot));
    }
    return names;
  }

  std::string path_;
  std::shared_ptr<const ExportArchive> archive_;
  std::shared_ptr<const ExportedProgram> program_;
};

std::shared_ptr<const ModelSpec> open_exported(util::ObjectReader& options) {
  const auto path = options.required_string("path");
  options.finish();
  ExportArchive archive;
  try {
    archive = read_export_archive(path);
  } catch (const InputError& e) {
    throw InputError(options.path_of("path"), "\"" + path + "\" " + e.problem());
  }
  std::shared_ptr<const ExportedSpec> spec;
  try {
    spec = std::make_shared<const ExportedSpec>(path, std::move(archive));
  } catch (const InputError& e) {
    throw InputError(options.path_of("path"), "\"" + path + "\": " + e.problem());
  }
  return spec;
}

}  // namespace

ModelEntry exported_entry() {
  ModelEntry entry;
  entry.name = "exported";
  entry.description = "your own model, exported with torch.export (options: path, the .pt2 archive)";
  entry.open = open_exported;
  entry.read = [](util::ObjectReader& options, const InputSpec& input) {
    auto spec = open_exported(options);
    spec->check_input(input);
    return spec;
  };
  return entry;
}

}  // namespace ampbench::models
