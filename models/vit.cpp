#include "models/vit.h"

#include <cmath>

#include "models/transformer_block.h"

namespace ampbench::models {
namespace {

// torch.nn.init.trunc_normal_ with its default bounds [-2, 2]: inverse-CDF sampling of N(0, std) cut there.
void truncated_normal_(torch::Tensor& tensor, double std) {
  auto cdf = [](double x) { return 0.5 * (1.0 + std::erf(x / std::sqrt(2.0))); };
  const double low = cdf(-2.0 / std), high = cdf(2.0 / std);
  tensor.uniform_(2 * low - 1, 2 * high - 1).erfinv_().mul_(std * std::sqrt(2.0)).clamp_(-2.0, 2.0);
}

}  // namespace

VitImpl::VitImpl(const VitOptions& o) {
  patch_embedding_ = register_module(
      "patch_embedding",
      torch::nn::Conv2d(torch::nn::Conv2dOptions(o.channels(), o.d_model(), o.patch()).stride(o.patch())));
  class_token_ = register_parameter("class_token", torch::zeros({1, 1, o.d_model()}));
  position_embedding_ =
      register_parameter("position_embedding", torch::empty({1, o.patches() + 1, o.d_model()}));
  for (int64_t i = 0; i < o.n_layer(); ++i) {
    blocks_->push_back(PreNormBlock(PreNormBlockOptions(o.d_model(), o.n_head(), o.d_mlp())
                                        .causal(false)
                                        .tanh_gelu(false)
                                        .norm_eps(1e-6)));
  }
  register_module("blocks", blocks_);
  ln_f_ = register_module("ln_f", torch::nn::LayerNorm(torch::nn::LayerNormOptions({o.d_model()}).eps(1e-6)));
  head_ = register_module("head", torch::nn::Linear(o.d_model(), o.num_classes()));
  initialise(o);
}

// torchvision's initialisation: a truncated normal of std sqrt(1 / fan_in) for the patch convolution,
// N(0, 0.02) position embeddings, a zero class token; in each block nn.MultiheadAttention's (Xavier-uniform
// packed projection, zero biases, nn.Linear's own init for the output projection) and MLPBlock's
// (Xavier-uniform weights, N(0, 1e-6) biases); LayerNorms ones and zeros; and a zero head, so that
// training starts from a loss of ln(classes).
void VitImpl::initialise(const VitOptions& o) {
  torch::NoGradGuard no_grad;
  truncated_normal_(patch_embedding_->weight, std::sqrt(1.0 / double(o.channels() * o.patch() * o.patch())));
  patch_embedding_->bias.zero_();
  position_embedding_.normal_(0.0, 0.02);
  for (const auto& item : blocks_->named_parameters()) {
    const auto& name = item.key();
    auto p = item.value();
    if (name.ends_with("qkv.weight") || name.ends_with("expand.weight") ||
        name.ends_with("contract.weight")) {
      torch::nn::init::xavier_uniform_(p);
    } else if (name.ends_with("qkv.bias") || name.ends_with("projection.bias")) {
      p.zero_();
    } else if (name.ends_with("expand.bias") || name.ends_with("contract.bias")) {
      p.normal_(0.0, 1e-6);
    }
  }
  head_->weight.zero_();
  head_->bias.zero_();
}

torch::Tensor VitImpl::forward(const torch::Tensor& images) {
  auto patches = patch_embedding_->forward(images).flatten(2).transpose(1, 2);  // [N, patches, d_model]
  auto x = torch::cat({class_token_.expand({patches.size(0), -1, -1}), patches}, 1) + position_embedding_;
  for (const auto& block : *blocks_) x = block->as<PreNormBlock>()->forward(x);
  return affine(head_, ln_f_->forward(x).select(1, 0));
}

double vit_forward_macs(const VitOptions& o) {
  const double d = double(o.d_model()), tokens = double(o.patches()) + 1, layers = double(o.n_layer());
  const double patch_embedding = double(o.patches()) * double(o.channels() * o.patch() * o.patch()) * d;
  const double per_token_linear = layers * (4 * d * d + 2 * d * double(o.d_mlp()));
  const double attention = layers * 2 * tokens * tokens * d;  // QK^T and AV over all heads
  return patch_embedding + per_token_linear * tokens + attention + d * double(o.num_classes());
}

VitOptions read_vit_options(util::ObjectReader& options, const InputSpec& input) {
  const auto& shape = input.sample_shape;
  if (shape.size() != 3) throw util::InputError("a ViT needs [C, H, W] images");
  VitOptions out(shape[0], shape[1], shape[2], input.num_classes);
  out.patch(options.integer("patch", out.patch(), 1, 1 << 12));
  out.n_layer(options.integer("n_layer", out.n_layer(), 1, 1024));
  out.n_head(options.integer("n_head", out.n_head(), 1, 1024));
  out.d_model(options.integer("d_model", out.d_model(), 1, 1 << 16));
  out.d_mlp(options.integer("d_mlp", out.d_mlp(), 1, 1 << 18));
  if (out.d_model() % out.n_head() != 0) {
    throw util::InputError(options.path_of("d_model"),
                           "must be a multiple of n_head (" + std::to_string(out.n_head()) + ")");
  }
  options.finish();
  if (shape[1] % out.patch() != 0 || shape[2] % out.patch() != 0) {
    throw util::InputError("a ViT with " + std::to_string(out.patch()) + "x" + std::to_string(out.patch()) +
                           " patches needs images whose sides are multiples of " +
                           std::to_string(out.patch()) + ", got " + std::to_string(shape[1]) + "x" +
                           std::to_string(shape[2]));
  }
  return out;
}

std::shared_ptr<Network> build_network(const VitOptions& options) {
  return std::make_shared<VitImpl>(options);
}

double forward_macs_of(const VitOptions& options, const InputSpec&) { return vit_forward_macs(options); }

ModelSize model_size_of(const VitOptions& o) {
  const double d = double(o.d_model());
  const double patch_embedding = (double(o.channels()) * double(o.patch()) * double(o.patch()) + 1) * d;
  const double positions = double(o.patches()) + 1;  // a position embedding per patch and the class token's
  const double block = pre_norm_block_parameters(PreNormBlockOptions(o.d_model(), o.n_head(), o.d_mlp()));
  const double head = (d + 1) * double(o.num_classes());
  return {patch_embedding + d + positions * d + double(o.n_layer()) * block + 2 * d + head, 0};
}

nlohmann::json options_json_of(const VitOptions& o) {
  return {{"patch", o.patch()},
          {"n_layer", o.n_layer()},
          {"n_head", o.n_head()},
          {"d_model", o.d_model()},
          {"d_mlp", o.d_mlp()}};
}

ModelEntry vit_entry() {
  ModelEntry entry;
  entry.name = "vit";
  entry.description =
      "torchvision's Vision Transformer on [C,H,W] images (options: patch, n_layer, n_head, d_model, d_mlp)";
  entry.read = [](util::ObjectReader& options, const InputSpec& input) -> std::shared_ptr<const ModelSpec> {
    return std::make_shared<ModelSpecOf<VitOptions>>(read_vit_options(options, input), input);
  };
  return entry;
}

}  // namespace ampbench::models
