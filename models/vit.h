#pragma once

#include <cstdint>

#include <nlohmann/json.hpp>

#include "models/network.h"
#include "models/registry.h"
#include "util/json_reader.h"

namespace ampbench::models {

struct VitOptions {
  VitOptions(int64_t channels, int64_t image_height, int64_t image_width, int64_t num_classes)
      : channels_(channels),
        image_height_(image_height),
        image_width_(image_width),
        num_classes_(num_classes) {}
  TORCH_ARG(int64_t, channels);
  TORCH_ARG(int64_t, image_height);
  TORCH_ARG(int64_t, image_width);
  TORCH_ARG(int64_t, num_classes);
  TORCH_ARG(int64_t, patch) = 16;  // side of the square patches; the image's sides are multiples of it
  TORCH_ARG(int64_t, n_layer) = 12;
  TORCH_ARG(int64_t, n_head) = 12;
  TORCH_ARG(int64_t, d_model) = 768;
  TORCH_ARG(int64_t, d_mlp) = 3072;

 public:
  int64_t patches() const { return (image_height_ / patch_) * (image_width_ / patch_); }
};

// The Vision Transformer as torchvision builds it (torchvision.models.VisionTransformer): a strided
// convolution cuts the image into patch embeddings, a learned class token goes in front, learned position
// embeddings are added, n_layer pre-LayerNorm encoder blocks (bidirectional attention, exact-GELU MLP,
// LayerNorm eps 1e-6) follow, then a final LayerNorm and a linear head on the class token. No dropout.
// ViT-B/16 (224x224, 1000 classes) has 86,567,656 parameters, as torchvision's vit_b_16.
class VitImpl : public Network {
 public:
  explicit VitImpl(const VitOptions& options);
  torch::Tensor forward(const torch::Tensor& images) override;

 private:
  void initialise(const VitOptions& options);

  torch::nn::Conv2d patch_embedding_{nullptr};
  torch::Tensor class_token_, position_embedding_;
  torch::nn::ModuleList blocks_;
  torch::nn::LayerNorm ln_f_{nullptr};
  torch::nn::Linear head_{nullptr};
};

// Multiply-adds of one image's forward pass: the patch convolution, every encoder linear layer on every
// token (patches + the class token), QK^T and AV over the whole token square, and the head.
double vit_forward_macs(const VitOptions& options);

// Reads patch, n_layer, n_head, d_model and d_mlp from a config's model.options; the image's shape and
// the classes are the data's.
VitOptions read_vit_options(util::ObjectReader& options, const InputSpec& input);
std::shared_ptr<Network> build_network(const VitOptions& options);
double forward_macs_of(const VitOptions& options, const InputSpec& input);
ModelSize model_size_of(const VitOptions& options);
nlohmann::json options_json_of(const VitOptions& options);

ModelEntry vit_entry();

}  // namespace ampbench::models
