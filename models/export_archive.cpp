#include "models/export_archive.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <memory>

#include <caffe2/serialize/inline_container.h>

#include "models/export_enums.h"
#include "util/fnv1a.h"
#include "util/input_error.h"

namespace ampbench::models {
namespace {

using caffe2::serialize::PyTorchStreamReader;
using nlohmann::json;
using util::InputError;

// LibTorch's reason, without the plea for a better message that some of its checks append.
std::string reason_of(const c10::Error& error) {
  std::string text = error.what_without_backtrace();
  const auto plea = text.find("  (Could this error message be improved?");
  return plea == std::string::npos ? text : text.substr(0, plea);
}

std::unique_ptr<PyTorchStreamReader> open_archive(const std::string& path) {
  std::error_code error;
  // A FIFO or device would block the zip reader, a directory cannot be one.
  if (!std::filesystem::is_regular_file(path, error)) {
    throw InputError("is not a regular file (expected a torch.export .pt2 archive)");
  }
  try {
    return std::make_unique<PyTorchStreamReader>(path);
  } catch (const c10::Error& e) {
    throw InputError("is not a torch.export archive: " + reason_of(e));
  }
}

std::string record_text(PyTorchStreamReader& reader, const std::string& name) {
  auto [data, size] = reader.getRecord(name);
  return std::string(static_cast<const char*>(data.get()), size);
}

// The one program the archive holds: its record's name without "models/" and ".json".
std::string program_name(PyTorchStreamReader& reader) {
  std::vector<std::string> names;
  for (const auto& record : reader.getAllRecords()) {
    if (record.starts_with("models/") && record.ends_with(".json") &&
        record.find('/', 7) == std::string::npos)
      names.push_back(record.substr(7, record.size() - 12));
  }
  if (names.size() != 1) {
    throw InputError("is not a torch.export archive of one program: it holds " +
                     std::to_string(names.size()) + " models/*.json records");
  }
  return names.front();
}

json parse_record(PyTorchStreamReader& reader, const std::string& name) {
  try {
    return json::parse(record_text(reader, name));
  } catch (const json::exception& e) {
    throw InputError("its record " + name + " is not JSON: " + e.what());
  }
}

int64_t static_int(const json& sym_int, const std::string& what) {
  if (!sym_int.contains("as_int")) throw InputError(what + " has a symbolic size or stride");
  return sym_int.at("as_int").get<int64_t>();
}

std::vector<int64_t> static_ints(const json& sym_ints, const std::string& what) {
  std::vector<int64_t> out;
  for (const auto& value : sym_ints) out.push_back(static_int(value, what));
  return out;
}

// The bytes a tensor of these sizes, strides and offset spans.
int64_t bytes_spanned(const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides, int64_t offset,
                      int64_t element_size) {
  int64_t last = offset;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] == 0) return 0;
    last += (sizes[i] - 1) * strides[i];
  }
  return (last + 1) * element_size;
}

// A tensor of its own from a record's bytes, laid out as `meta` (a TensorMeta) says.
torch::Tensor tensor_from_record(PyTorchStreamReader& reader, const std::string& record, const json& meta,
                                 const std::string& what) {
  const auto dtype = scalar_type_of(meta.at("dtype").get<int64_t>());
  if (!dtype)
    throw InputError(what + " has dtype " + meta.at("dtype").dump() +
                     ", which torch.export's schema does not name");
  const auto sizes = static_ints(meta.at("sizes"), what);
  const auto strides = static_ints(meta.at("strides"), what);
  const auto offset = static_int(meta.at("storage_offset"), what);
  if (strides.size() != sizes.size())
    throw InputError(what + " has " + std::to_string(strides.size()) + " strides for " +
                     std::to_string(sizes.size()) + " sizes");
  const int64_t element = int64_t(c10::elementSize(*dtype));
  const int64_t needed = bytes_spanned(sizes, strides, offset, element);
  if (!reader.hasRecord(record)) throw InputError(what + ": the archive has no record " + record);
  auto [data, size] = reader.getRecord(record);
  if (int64_t(size) < needed) {
    throw InputError(what + ": its record " + record + " holds " + std::to_string(size) +
                     " bytes, its metadata needs " + std::to_string(needed));
  }
  auto flat = torch::from_blob(data.get(), {int64_t(size) / element}, torch::TensorOptions().dtype(*dtype));
  auto tensor = flat.as_strided(sizes, strides, offset).clone(at::MemoryFormat::Contiguous);
  // A parameter the exported module froze (requires_grad off) stays frozen.
  if (tensor.is_floating_point()) tensor.set_requires_grad(meta.value("requires_grad", false));
  return tensor;
}

// The tensors a data/<folder>/<program>_<folder>_config.json lists (weights or constants). Names that share
// a record with the same metadata are one tensor of the module (tied weights: GPT-2's embedding and LM head)
// and stay one tensor here; different views of one record are refused rather than untied.
std::vector<NamedTensor> read_tensors(PyTorchStreamReader& reader, const std::string& folder,
                                      const std::string& config_name) {
  const std::string config_record = "data/" + folder + "/" + config_name;
  if (!reader.hasRecord(config_record)) return {};
  std::vector<NamedTensor> out;
  std::map<std::string, std::pair<std::string, json>> first_reader;  // record -> its first name and metadata
  const auto config = parse_record(reader, config_record);
  for (const auto& [name, entry] : config.at("config").items()) {
    const std::string what =
        folder.substr(0, folder.size() - 1) + " \"" + name + "\"";  // "weight \"fc.bias\""
    if (entry.value("use_pickle", false))
      throw InputError(what + " is pickled (a tensor subclass), which ampbench cannot read");
    const auto record = "data/" + folder + "/" + entry.at("path_name").get<std::string>();
    const auto& meta = entry.at("tensor_meta");
    const auto [first, fresh] = first_reader.try_emplace(record, name, meta);
    if (fresh) {
      out.emplace_back(name, tensor_from_record(reader, record, meta, what));
      continue;
    }
    if (first->second.second != meta)
      throw InputError(what + " is another view of \"" + first->second.first +
                       "\"'s storage, which ampbench cannot keep tied");
    const auto& tied = std::find_if(out.begin(), out.end(), [&](const NamedTensor& t) {
                         return t.first == first->second.first;
                       })->second;
    out.emplace_back(name, tied);
  }
  return out;
}

void check_schema_version(const json& program) {
  const auto major = program.at("schema_version").at("major").get<int64_t>();
  if (major != kExportSchemaMajor) {
    throw InputError("its program's schema version is " + std::to_string(major) + "." +
                     program.at("schema_version").value("minor", json(0)).dump() +
                     "; ampbench reads version " + std::to_string(kExportSchemaMajor) +
                     ".x (torch 2.13 and 2.14)");
  }
}

std::string fingerprint_of(const std::string& program_text, const ExportArchive& archive) {
  uint64_t hash = util::fnv1a(program_text.data(), program_text.size());
  for (const auto* tensors : {&archive.weights, &archive.constants}) {
    for (const auto& [name, tensor] : *tensors) {
      hash = util::fnv1a(name.data(), name.size(), hash);
      hash = util::fnv1a(tensor.data_ptr(), tensor.nbytes(), hash);
    }
  }
  return util::hex64(hash);
}

}  // namespace

ExportArchive read_export_archive(const std::string& path) {
  auto reader = open_archive(path);
  try {
    const auto name = program_name(*reader);
    const auto program_text = record_text(*reader, "models/" + name + ".json");
    ExportArchive archive;
    archive.program = parse_record(*reader, "models/" + name + ".json");
    check_schema_version(archive.program);
    archive.torch_version = archive.program.value("torch_version", "");
    archive.weights = read_tensors(*reader, "weights", name + "_weights_config.json");
    archive.constants = read_tensors(*reader, "constants", name + "_constants_config.json");
    archive.fingerprint = fingerprint_of(program_text, archive);
    return archive;
  } catch (const json::exception& e) {
    throw InputError("its program or weights' metadata is not as torch.export writes it: " +
                     std::string(e.what()));
  } catch (const c10::Error& e) {
    throw InputError("cannot be read as a torch.export archive: " + reason_of(e));
  }
}

}  // namespace ampbench::models
