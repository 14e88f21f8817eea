#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <torch/torch.h>
#include <nlohmann/json.hpp>

namespace ampbench::models {

// The serialized-program schema major version this reader reads (torch.export's schema.yaml, written by
// torch 2.13 and 2.14).
inline constexpr int kExportSchemaMajor = 8;

// One named tensor of an archive's state, by its fully qualified name in the exported module ("fc.weight").
using NamedTensor = std::pair<std::string, torch::Tensor>;

// What a torch.export archive (.pt2, written by torch.export.save) holds that a training run needs: the
// program (models/model.json) and its parameters and buffers (data/weights), as fp32-or-other CPU tensors
// of their own (not views of the file).
struct ExportArchive {
  nlohmann::json program;  // the ExportedProgram: graph_module, schema_version, torch_version
  // Parameters and buffers, in the order of the weights' config; requires_grad as their metadata says.
  // Tied names (one record, the same metadata) hold the same tensor.
  std::vector<NamedTensor> weights;
  std::vector<NamedTensor> constants;  // lifted tensor constants
  std::string torch_version;           // that exported it
  std::string fingerprint;             // FNV-1a over the program and every weight's bytes, hex
};

// Reads the archive at `path`. Throws util::InputError (unlocated: the caller knows where the path came
// from) for a file that is not a torch.export archive, a schema major version other than
// kExportSchemaMajor, or weights that are pickled or shorter than their metadata says.
ExportArchive read_export_archive(const std::string& path);

}  // namespace ampbench::models
