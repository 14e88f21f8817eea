#pragma once

#include <memory>
#include <string>
#include <vector>

#include "models/export_archive.h"
#include "models/exported_program.h"
#include "models/network.h"
#include "models/registry.h"

namespace ampbench::models {

// The user's own model, from a torch.export archive: the archive's parameters as trainable fp32 leaves and
// its buffers and constants as module state (named as in the exported module, "layer1.0.bn1.weight"), the
// program's graph run node by node as its forward. Its weights are the archive's, whatever the seed.
class ExportedNetwork : public Network {
 public:
  ExportedNetwork(std::shared_ptr<const ExportedProgram> program, const ExportArchive& archive);
  torch::Tensor forward(const torch::Tensor& inputs) override;
  int64_t lifted_constant_elements() const override { return constant_elements_; }

 private:
  torch::Tensor state_tensor(const std::string& name, const torch::Tensor& stored, bool parameter);
  torch::nn::Module& owner_of(const std::string& name);

  std::shared_ptr<const ExportedProgram> program_;
  std::vector<std::pair<Slot, torch::Tensor>> state_;           // what the graph reads besides the batch
  std::vector<std::pair<Slot, torch::Tensor>> buffer_updates_;  // graph outputs copied into buffers
  int64_t constant_elements_ = 0;
};

// "exported": {"path": "model.pt2"}, a torch.export archive (relative to the working directory).
ModelEntry exported_entry();

}  // namespace ampbench::models
