#include "models/gpt.h"

#include <cmath>

namespace ampbench::models {
namespace {

namespace F = torch::nn::functional;

torch::nn::Linear linear(int64_t in, int64_t out) {
  return torch::nn::Linear(torch::nn::LinearOptions(in, out));
}

torch::nn::LayerNorm layer_norm(int64_t d) { return torch::nn::LayerNorm(torch::nn::LayerNormOptions({d})); }

// A Linear layer applied through ATen's linear, as PyTorch-Python's nn.Linear is. The C++ frontend's
// Linear::forward runs a [B, T, C] input as a matmul followed by a separate in-place bias add: one more
// pass over the output each way, and under autocast a second rounding to 16 bits. ATen folds the bias
// into the one GEMM.
torch::Tensor affine(const torch::nn::Linear& layer, const torch::Tensor& x) {
  return at::linear(x, layer->weight, layer->bias);
}

}  // namespace

CausalSelfAttentionImpl::CausalSelfAttentionImpl(int64_t d_model, int64_t n_head)
    : n_head_(n_head),
      qkv_(register_module("qkv", linear(d_model, 3 * d_model))),
      projection_(register_module("projection", linear(d_model, d_model))) {}

torch::Tensor CausalSelfAttentionImpl::forward(const torch::Tensor& x) {
  const auto batch = x.size(0), length = x.size(1), width = x.size(2);
  auto heads = [&](const torch::Tensor& t) {
    return t.view({batch, length, n_head_, width / n_head_}).transpose(1, 2);
  };
  auto qkv = affine(qkv_, x).split(width, 2);
  auto y = at::scaled_dot_product_attention(heads(qkv[0]), heads(qkv[1]), heads(qkv[2]), /*attn_mask=*/{},
                                            /*dropout_p=*/0.0, /*is_causal=*/true);
  return affine(projection_, y.transpose(1, 2).contiguous().view({batch, length, width}));
}

GptBlockImpl::GptBlockImpl(int64_t d_model, int64_t n_head)
    : ln_1_(register_module("ln_1", layer_norm(d_model))),
      ln_2_(register_module("ln_2", layer_norm(d_model))),
      attention_(register_module("attention", CausalSelfAttention(d_model, n_head))),
      expand_(register_module("expand", linear(d_model, 4 * d_model))),
      contract_(register_module("contract", linear(4 * d_model, d_model))) {}

torch::Tensor GptBlockImpl::forward(torch::Tensor x) {
  x = x + attention_->forward(ln_1_->forward(x));
  return x + affine(contract_,
                    F::gelu(affine(expand_, ln_2_->forward(x)), F::GELUFuncOptions().approximate("tanh")));
}

GptImpl::GptImpl(const GptOptions& options) {
  token_embedding_ =
      register_module("token_embedding", torch::nn::Embedding(options.vocab(), options.d_model()));
  position_embedding_ =
      register_module("position_embedding", torch::nn::Embedding(options.context(), options.d_model()));
  for (int64_t i = 0; i < options.n_layer(); ++i)
    blocks_->push_back(GptBlock(options.d_model(), options.n_head()));
  register_module("blocks", blocks_);
  ln_f_ = register_module("ln_f", layer_norm(options.d_model()));

  // GPT-2's initialisation: N(0, 0.02) weights, zero biases, and the residual projections scaled down by
  // sqrt(2 * n_layer) so that the residual stream's variance does not grow with depth.
  torch::NoGradGuard no_grad;
  const double residual_std = 0.02 / std::sqrt(2.0 * double(options.n_layer()));
  for (const auto& item : named_parameters()) {
    const auto& name = item.key();
    auto& p = item.value();
    if (name.find("ln_") != std::string::npos) continue;  // LayerNorm: ones and zeros already
    if (name.ends_with(".bias")) {
      p.zero_();
    } else {
      bool residual = name.ends_with("projection.weight") || name.ends_with("contract.weight");
      p.normal_(0.0, residual ? residual_std : 0.02);
    }
  }
}

torch::Tensor GptImpl::forward(const torch::Tensor& tokens) {
  auto positions = torch::arange(tokens.size(1), tokens.options().dtype(torch::kInt64));
  auto x = token_embedding_->forward(tokens) + position_embedding_->forward(positions);
  for (const auto& block : *blocks_) x = block->as<GptBlock>()->forward(x);
  // The LM head shares the token embedding's weights (weight tying), as GPT-2 does.
  return F::linear(ln_f_->forward(x), token_embedding_->weight);
}

int64_t gpt_forward_macs(const GptOptions& o, int64_t tokens) {
  const int64_t d = o.d_model();
  const int64_t per_token_linear = o.n_layer() * (3 * d * d + d * d + 4 * d * d + 4 * d * d) + d * o.vocab();
  const int64_t attention = o.n_layer() * 2 * tokens * tokens * d;  // QK^T and AV over all heads
  return per_token_linear * tokens + attention;
}

GptOptions read_gpt_options(util::ObjectReader& options, const InputSpec& input) {
  const int64_t length = input.sample_shape.at(0);
  GptOptions out(input.num_classes, length);
  out.n_layer(options.integer("n_layer", out.n_layer(), 1, 1024));
  out.n_head(options.integer("n_head", out.n_head(), 1, 1024));
  out.d_model(options.integer("d_model", out.d_model(), 1, 1 << 16));
  out.context(options.integer("context", out.context(), 1, 1 << 20));
  if (out.d_model() % out.n_head() != 0) {
    throw util::InputError(options.path_of("d_model"),
                           "must be a multiple of n_head (" + std::to_string(out.n_head()) + ")");
  }
  if (out.context() < length) {
    throw util::InputError("sequences of " + std::to_string(length) +
                           " tokens are longer than the model's context (" + std::to_string(out.context()) +
                           ")");
  }
  options.finish();
  return out;
}

std::shared_ptr<Network> build_network(const GptOptions& options) {
  return std::make_shared<GptImpl>(options);
}

int64_t forward_macs_of(const GptOptions& options, const InputSpec& input) {
  return gpt_forward_macs(options, input.sample_shape.at(0));
}

nlohmann::json options_json_of(const GptOptions& o) {
  return {
      {"n_layer", o.n_layer()}, {"n_head", o.n_head()}, {"d_model", o.d_model()}, {"context", o.context()}};
}

ModelEntry gpt_entry() {
  ModelEntry entry;
  entry.name = "gpt";
  entry.description = "GPT-2-style decoder-only language model (options: n_layer, n_head, d_model, context)";
  entry.language_model = true;
  entry.read = [](util::ObjectReader& options, const InputSpec& input) -> std::shared_ptr<const ModelSpec> {
    return std::make_shared<ModelSpecOf<GptOptions>>(read_gpt_options(options, input), input);
  };
  return entry;
}

}  // namespace ampbench::models
