#include "models/llama.h"

#include "amp/float8_linear.h"

namespace ampbench::models {
namespace {

namespace F = torch::nn::functional;

torch::nn::Linear linear_without_bias(int64_t in, int64_t out) {
  return torch::nn::Linear(torch::nn::LinearOptions(in, out).bias(false));
}

// x * cos + rotate_half(x) * sin, where rotate_half swaps the two halves of the head dimension and negates
// the second (Hugging Face's layout, not the interleaved pairs of Meta's complex-number form).
torch::Tensor rotate(const torch::Tensor& x, const torch::Tensor& cos, const torch::Tensor& sin) {
  auto x32 = x.to(torch::kFloat32);
  auto halves = x32.chunk(2, -1);
  return (x32 * cos + torch::cat({-halves[1], halves[0]}, -1) * sin).to(x.scalar_type());
}

}  // namespace

RmsNormImpl::RmsNormImpl(int64_t d_model, double eps)
    : eps_(eps), weight_(register_parameter("weight", torch::ones({d_model}))) {}

torch::Tensor RmsNormImpl::forward(const torch::Tensor& x) {
  auto x32 = x.to(torch::kFloat32);
  auto normalised = x32 * torch::rsqrt(x32.pow(2).mean(-1, /*keepdim=*/true) + eps_);
  return weight_ * normalised.to(x.scalar_type());
}

GroupedQueryAttentionImpl::GroupedQueryAttentionImpl(const LlamaOptions& o)
    : n_head_(o.n_head()),
      n_kv_head_(o.n_kv_head()),
      head_dim_(o.head_dim()),
      query_(register_module("query", linear_without_bias(o.d_model(), o.n_head() * o.head_dim()))),
      key_(register_module("key", linear_without_bias(o.d_model(), o.n_kv_head() * o.head_dim()))),
      value_(register_module("value", linear_without_bias(o.d_model(), o.n_kv_head() * o.head_dim()))),
      output_(register_module("output", linear_without_bias(o.n_head() * o.head_dim(), o.d_model()))) {}

torch::Tensor GroupedQueryAttentionImpl::forward(const torch::Tensor& x, const torch::Tensor& cos,
                                                 const torch::Tensor& sin) {
  const auto batch = x.size(0), length = x.size(1);
  auto heads = [&](const torch::Tensor& t, int64_t count) {
    return t.view({batch, length, count, head_dim_}).transpose(1, 2);
  };
  auto q = rotate(heads(amp::linear(x, query_->weight), n_head_), cos, sin);
  auto k = rotate(heads(amp::linear(x, key_->weight), n_kv_head_), cos, sin);
  auto v = heads(amp::linear(x, value_->weight), n_kv_head_);
  // Each key/value head serves a group of query heads. Repeated explicitly rather than through SDPA's
  // enable_gqa, which CUDA's fused kernels do not all take: fp32 would fall back to the unfused path.
  if (n_kv_head_ != n_head_) {
    k = k.repeat_interleave(n_head_ / n_kv_head_, 1);
    v = v.repeat_interleave(n_head_ / n_kv_head_, 1);
  }
  auto y = at::scaled_dot_product_attention(q, k, v, /*attn_mask=*/{}, /*dropout_p=*/0.0, /*is_causal=*/true);
  return amp::linear(y.transpose(1, 2).contiguous().view({batch, length, n_head_ * head_dim_}),
                     output_->weight);
}

LlamaBlockImpl::LlamaBlockImpl(const LlamaOptions& o)
    : attention_norm_(register_module("attention_norm", RmsNorm(o.d_model(), o.norm_eps()))),
      mlp_norm_(register_module("mlp_norm", RmsNorm(o.d_model(), o.norm_eps()))),
      attention_(register_module("attention", GroupedQueryAttention(o))),
      gate_(register_module("gate", linear_without_bias(o.d_model(), o.d_mlp()))),
      up_(register_module("up", linear_without_bias(o.d_model(), o.d_mlp()))),
      down_(register_module("down", linear_without_bias(o.d_mlp(), o.d_model()))) {}

torch::Tensor LlamaBlockImpl::forward(torch::Tensor x, const torch::Tensor& cos, const torch::Tensor& sin) {
  x = x + attention_->forward(attention_norm_->forward(x), cos, sin);
  auto normalised = mlp_norm_->forward(x);
  return x +
         amp::linear(F::silu(amp::linear(normalised, gate_->weight)) * amp::linear(normalised, up_->weight),
                     down_->weight);
}

LlamaImpl::LlamaImpl(const LlamaOptions& o) {
  token_embedding_ = register_module("token_embedding", torch::nn::Embedding(o.vocab(), o.d_model()));
  for (int64_t i = 0; i < o.n_layer(); ++i) blocks_->push_back(LlamaBlock(o));
  register_module("blocks", blocks_);
  norm_ = register_module("norm", RmsNorm(o.d_model(), o.norm_eps()));
  if (!o.tie_embeddings()) lm_head_ = register_module("lm_head", linear_without_bias(o.d_model(), o.vocab()));
  // The rotary tables, computed once in fp32 (Hugging Face computes the same products on each call):
  // position p, frequency i: angle p * theta^(-2i / head_dim), each angle used for both halves.
  const int64_t d = o.head_dim();
  auto inverse_frequency =
      1.0 / torch::pow(o.rope_theta(), torch::arange(0, d, 2, torch::kFloat32) / double(d));
  auto angles = torch::outer(torch::arange(o.context(), torch::kFloat32), inverse_frequency);
  angles = torch::cat({angles, angles}, -1);
  rotary_cos_ = register_buffer("rotary_cos", angles.cos());
  rotary_sin_ = register_buffer("rotary_sin", angles.sin());
  initialise();
}

// Hugging Face's LlamaPreTrainedModel initialisation: N(0, 0.02) for the embedding and every linear layer,
// RMSNorm weights one.
void LlamaImpl::initialise() {
  torch::NoGradGuard no_grad;
  for (auto& p : parameters()) {
    if (p.dim() == 2) p.normal_(0.0, 0.02);
  }
}

torch::Tensor LlamaImpl::forward(const torch::Tensor& tokens) {
  const auto length = tokens.size(1);
  auto cos = rotary_cos_.narrow(0, 0, length), sin = rotary_sin_.narrow(0, 0, length);
  auto x = token_embedding_->forward(tokens);
  for (const auto& block : *blocks_) x = block->as<LlamaBlock>()->forward(x, cos, sin);
  x = norm_->forward(x);
  return amp::linear(x, lm_head_ ? lm_head_->weight : token_embedding_->weight);
}

double llama_forward_macs(const LlamaOptions& o, int64_t tokens) {
  const double d = double(o.d_model()), q = double(o.n_head() * o.head_dim()),
               kv = double(o.n_kv_head() * o.head_dim()), t = double(tokens), layers = double(o.n_layer());
  const double per_layer = d * q + 2 * d * kv + q * d + 3 * d * double(o.d_mlp());
  const double attention = layers * 2 * t * t * q;  // QK^T and AV over all query heads
  return (layers * per_layer + d * double(o.vocab())) * t + attention;
}

namespace {

void check_heads(util::ObjectReader& options, const LlamaOptions& o) {
  if (o.n_head() % o.n_kv_head() != 0) {
    throw util::InputError(options.path_of("n_kv_head"),
                           "must divide n_head (" + std::to_string(o.n_head()) + ")");
  }
  if (o.d_model() % o.n_head() != 0) {
    throw util::InputError(options.path_of("d_model"),
                           "must be a multiple of n_head (" + std::to_string(o.n_head()) + ")");
  }
  if (o.head_dim() % 2 != 0) {
    throw util::InputError(options.path_of("d_model"), "must give an even head width (d_model / n_head, " +
                                                           std::to_string(o.head_dim()) +
                                                           "): the rotary embedding turns pairs");
  }
}

}  // namespace

LlamaOptions read_llama_options(util::ObjectReader& options, const InputSpec& input) {
  const int64_t length = input.sample_shape.at(0);
  LlamaOptions out(input.num_classes, length);
  out.n_layer(options.integer("n_layer", out.n_layer(), 1, 1024));
  out.n_head(options.integer("n_head", out.n_head(), 1, 1024));
  out.n_kv_head(options.integer("n_kv_head", out.n_kv_head(), 1, 1024));
  out.d_model(options.integer("d_model", out.d_model(), 1, 1 << 16));
  out.d_mlp(options.integer("d_mlp", out.d_mlp(), 1, 1 << 18));
  out.context(options.integer("context", out.context(), 1, 1 << 20));
  out.rope_theta(options.number("rope_theta", out.rope_theta(), 0.0, 1e12, /*exclusive_min=*/true));
  out.norm_eps(options.number("norm_eps", out.norm_eps(), 0.0, 1.0, /*exclusive_min=*/true));
  out.tie_embeddings(options.boolean("tie_embeddings", out.tie_embeddings()));
  check_heads(options, out);
  options.finish();
  if (out.context() < length) {
    throw util::InputError("sequences of " + std::to_string(length) +
                           " tokens are longer than the model's context (" + std::to_string(out.context()) +
                           ")");
  }
  return out;
}

std::shared_ptr<Network> build_network(const LlamaOptions& options) {
  return std::make_shared<LlamaImpl>(options);
}

double forward_macs_of(const LlamaOptions& options, const InputSpec& input) {
  return llama_forward_macs(options, input.sample_shape.at(0));
}

ModelSize model_size_of(const LlamaOptions& o) {
  const double d = double(o.d_model()), head = double(o.head_dim());
  const double attention = d * head * (2 * double(o.n_head()) + 2 * double(o.n_kv_head()));
  const double block = 2 * d + attention + 3 * d * double(o.d_mlp());  // two RMSNorms, attention, SwiGLU
  const double embeddings = double(o.vocab()) * d * (o.tie_embeddings() ? 1 : 2);
  const double rotary = 2 * double(o.context()) * head;  // the cos and sin tables: head_dim per position
  return {embeddings + double(o.n_layer()) * block + d, rotary};
}

nlohmann::json options_json_of(const LlamaOptions& o) {
  return {{"n_layer", o.n_layer()},       {"n_head", o.n_head()},     {"n_kv_head", o.n_kv_head()},
          {"d_model", o.d_model()},       {"d_mlp", o.d_mlp()},       {"context", o.context()},
          {"rope_theta", o.rope_theta()}, {"norm_eps", o.norm_eps()}, {"tie_embeddings", o.tie_embeddings()}};
}

ModelEntry llama_entry() {
  ModelEntry entry;
  entry.name = "llama";
  entry.description =
      "LLaMA-style decoder-only language model (options: n_layer, n_head, n_kv_head, d_model, d_mlp, "
      "context, "
      "rope_theta, norm_eps, tie_embeddings)";
  entry.language_model = true;
  entry.read = [](util::ObjectReader& options, const InputSpec& input) -> std::shared_ptr<const ModelSpec> {
    return std::make_shared<ModelSpecOf<LlamaOptions>>(read_llama_options(options, input), input);
  };
  return entry;
}

}  // namespace ampbench::models
