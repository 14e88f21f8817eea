#include "models/transformer_block.h"

#include "amp/float8_linear.h"

namespace ampbench::models {
namespace {

namespace F = torch::nn::functional;

torch::nn::Linear linear(int64_t in, int64_t out) {
  return torch::nn::Linear(torch::nn::LinearOptions(in, out));
}

torch::nn::LayerNorm layer_norm(int64_t d, double eps) {
  return torch::nn::LayerNorm(torch::nn::LayerNormOptions({d}).eps(eps));
}

}  // namespace

torch::Tensor affine(const torch::nn::Linear& layer, const torch::Tensor& x) {
  return amp::linear(x, layer->weight, layer->bias);
}

SelfAttentionImpl::SelfAttentionImpl(int64_t d_model, int64_t n_head, bool causal)
    : n_head_(n_head),
      causal_(causal),
      qkv_(register_module("qkv", linear(d_model, 3 * d_model))),
      projection_(register_module("projection", linear(d_model, d_model))) {}

torch::Tensor SelfAttentionImpl::forward(const torch::Tensor& x) {
  const auto batch = x.size(0), length = x.size(1), width = x.size(2);
  auto heads = [&](const torch::Tensor& t) {
    return t.view({batch, length, n_head_, width / n_head_}).transpose(1, 2);
  };
  auto qkv = affine(qkv_, x).split(width, 2);
  auto y = at::scaled_dot_product_attention(heads(qkv[0]), heads(qkv[1]), heads(qkv[2]), /*attn_mask=*/{},
                                            /*dropout_p=*/0.0, /*is_causal=*/causal_);
  return affine(projection_, y.transpose(1, 2).contiguous().view({batch, length, width}));
}

PreNormBlockImpl::PreNormBlockImpl(const PreNormBlockOptions& o)
    : tanh_gelu_(o.tanh_gelu()),
      ln_1_(register_module("ln_1", layer_norm(o.d_model(), o.norm_eps()))),
      ln_2_(register_module("ln_2", layer_norm(o.d_model(), o.norm_eps()))),
      attention_(register_module("attention", SelfAttention(o.d_model(), o.n_head(), o.causal()))),
      expand_(register_module("expand", linear(o.d_model(), o.d_mlp()))),
      contract_(register_module("contract", linear(o.d_mlp(), o.d_model()))) {}

double pre_norm_block_parameters(const PreNormBlockOptions& o) {
  const double d = double(o.d_model()), mlp = double(o.d_mlp());
  const double norms = 2 * 2 * d, attention = (d + 1) * 3 * d + (d + 1) * d;
  return norms + attention + (d + 1) * mlp + (mlp + 1) * d;
}

torch::Tensor PreNormBlockImpl::forward(torch::Tensor x) {
  x = x + attention_->forward(ln_1_->forward(x));
  auto hidden = F::gelu(affine(expand_, ln_2_->forward(x)),
                        F::GELUFuncOptions().approximate(tanh_gelu_ ? "tanh" : "none"));
  return x + affine(contract_, hidden);
}

}  // namespace ampbench::models
