#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/network.h"
#include "models/registry.h"
#include "util/json_reader.h"

namespace ampbench::models {

struct ResNetOptions {
  ResNetOptions(std::array<int64_t, 4> blocks, bool bottleneck, int64_t num_classes)
      : blocks_(blocks), bottleneck_(bottleneck), num_classes_(num_classes) {}
  using StageBlocks = std::array<int64_t, 4>;
  TORCH_ARG(StageBlocks, blocks);  // residual blocks per stage
  TORCH_ARG(bool, bottleneck);     // Bottleneck (1x1-3x3-1x1, x4) instead of BasicBlock
  TORCH_ARG(int64_t, num_classes);
  TORCH_ARG(int64_t, in_channels) = 3;
  // 3x3 stride-1 first convolution and no max-pool, for 32x32 inputs (CIFAR); torchvision's
  // 7x7 stride-2 convolution + max-pool otherwise.
  TORCH_ARG(bool, cifar_stem) = false;
};

// torchvision's ResNet (v1.5: the stride sits on the 3x3 convolution), layer for layer, so parameter
// counts and initialisation match torchvision.models.resnet18/34/50.
class ResNetImpl : public Network {
 public:
  explicit ResNetImpl(const ResNetOptions& options);
  torch::Tensor forward(const torch::Tensor& inputs) override;

 private:
  torch::nn::Sequential make_stage(int64_t& in_planes, int64_t planes, int64_t blocks, int64_t stride,
                                   bool bottleneck);

  torch::nn::Conv2d conv1_{nullptr};
  torch::nn::BatchNorm2d bn1_{nullptr};
  bool max_pool_ = true;
  torch::nn::Sequential layer1_{nullptr}, layer2_{nullptr}, layer3_{nullptr}, layer4_{nullptr};
  torch::nn::Linear fc_{nullptr};
};

// Multiply-adds of one forward pass on an image of height x width: every convolution and the classifier.
double resnet_forward_macs(const ResNetOptions& options, int64_t height, int64_t width);

// Reads the stem ("imagenet" or "cifar") from a config's model.options for a ResNet of these blocks, and
// checks that the input is an image large enough for it.
ResNetOptions read_resnet_options(util::ObjectReader& options, const InputSpec& input,
                                  ResNetOptions::StageBlocks blocks, bool bottleneck);
std::shared_ptr<Network> build_network(const ResNetOptions& options);
double forward_macs_of(const ResNetOptions& options, const InputSpec& input);
ModelSize model_size_of(const ResNetOptions& options);
nlohmann::json options_json_of(const ResNetOptions& options);

// resnet18, resnet34, resnet50.
std::vector<ModelEntry> resnet_entries();

}  // namespace ampbench::models
