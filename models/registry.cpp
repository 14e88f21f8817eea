#include "models/registry.h"

#include "models/exported.h"
#include "models/gpt.h"
#include "models/llama.h"
#include "models/mlp.h"
#include "models/resnet.h"
#include "models/vit.h"

namespace ampbench::models {

const std::vector<ModelEntry>& model_registry() {
  static const std::vector<ModelEntry> registry = [] {
    std::vector<ModelEntry> entries{mlp_entry()};
    for (auto& entry : resnet_entries()) entries.push_back(std::move(entry));
    entries.push_back(vit_entry());
    entries.push_back(gpt_entry());
    entries.push_back(llama_entry());
    entries.push_back(exported_entry());
    return entries;
  }();
  return registry;
}

const ModelEntry* find_model(const std::string& name) {
  for (const auto& entry : model_registry()) {
    if (entry.name == name) return &entry;
  }
  return nullptr;
}

std::string model_names() {
  std::string names;
  for (const auto& entry : model_registry()) names += (names.empty() ? "" : ", ") + entry.name;
  return names;
}

}  // namespace ampbench::models
