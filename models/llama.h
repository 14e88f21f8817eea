#pragma once

#include <cstdint>

#include <nlohmann/json.hpp>

#include "models/network.h"
#include "models/registry.h"
#include "util/json_reader.h"

namespace ampbench::models {

struct LlamaOptions {
  LlamaOptions(int64_t vocab, int64_t context) : vocab_(vocab), context_(context) {}
  TORCH_ARG(int64_t, vocab);
  TORCH_ARG(int64_t, context);  // positions the rotary tables cover
  TORCH_ARG(int64_t, n_layer) = 16;
  TORCH_ARG(int64_t, n_head) = 32;    // query heads
  TORCH_ARG(int64_t, n_kv_head) = 8;  // key/value heads, each shared by n_head / n_kv_head query heads
  TORCH_ARG(int64_t, d_model) = 2048;
  TORCH_ARG(int64_t, d_mlp) = 8192;  // SwiGLU's hidden width
  TORCH_ARG(double, rope_theta) = 500000.0;
  TORCH_ARG(double, norm_eps) = 1e-5;
  TORCH_ARG(bool, tie_embeddings) = true;  // the LM head shares the token embedding's weights

 public:
  int64_t head_dim() const { return d_model_ / n_head_; }
};

// RMSNorm as Hugging Face's LlamaRMSNorm computes it: the mean square is reduced in fp32 whatever the
// input's dtype, the normalised values are rounded back to it, then scaled by the (fp32) weight.
class RmsNormImpl : public torch::nn::Module {
 public:
  RmsNormImpl(int64_t d_model, double eps);
  torch::Tensor forward(const torch::Tensor& x);

 private:
  double eps_;
  torch::Tensor weight_;
};
TORCH_MODULE(RmsNorm);

// Causal grouped-query attention with rotary position embeddings on the queries and keys. The rotation
// is done in fp32 and cast back to the projections' dtype, as Meta's reference code does: angles and
// products in 16 bits would lose the position information of long contexts.
class GroupedQueryAttentionImpl : public torch::nn::Module {
 public:
  explicit GroupedQueryAttentionImpl(const LlamaOptions& options);
  // cos and sin: the rotary tables [T, head_dim], fp32.
  torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& cos, const torch::Tensor& sin);

 private:
  int64_t n_head_, n_kv_head_, head_dim_;
  torch::nn::Linear query_{nullptr}, key_{nullptr}, value_{nullptr}, output_{nullptr};
};
TORCH_MODULE(GroupedQueryAttention);

// Pre-RMSNorm decoder block: x + attention(norm(x)), then x + down(SiLU(gate(norm(x))) * up(norm(x))).
class LlamaBlockImpl : public torch::nn::Module {
 public:
  explicit LlamaBlockImpl(const LlamaOptions& options);
  torch::Tensor forward(torch::Tensor x, const torch::Tensor& cos, const torch::Tensor& sin);

 private:
  RmsNorm attention_norm_{nullptr}, mlp_norm_{nullptr};
  GroupedQueryAttention attention_{nullptr};
  torch::nn::Linear gate_{nullptr}, up_{nullptr}, down_{nullptr};
};
TORCH_MODULE(LlamaBlock);

// A LLaMA-style decoder-only language model, as Hugging Face's LlamaForCausalLM builds it: token
// embedding, n_layer blocks, a final RMSNorm and an LM head (tied to the embedding or not); no biases,
// no position embeddings other than the rotary ones. Token ids [N, T] (T <= context) to next-token logits
// [N, T, vocab]. At Llama-3.2-1B's shape (the defaults, vocab 128,256) it has 1,235,814,400 parameters.
class LlamaImpl : public Network {
 public:
  explicit LlamaImpl(const LlamaOptions& options);
  torch::Tensor forward(const torch::Tensor& tokens) override;

 private:
  void initialise();

  torch::nn::Embedding token_embedding_{nullptr};
  torch::nn::ModuleList blocks_;
  RmsNorm norm_{nullptr};
  torch::nn::Linear lm_head_{nullptr};  // null when tied
  torch::Tensor rotary_cos_, rotary_sin_;
};

// Multiply-adds of one forward pass over a sequence of `tokens`: every linear layer, the LM head, and QK^T
// and AV over the whole T x T square for every query head.
double llama_forward_macs(const LlamaOptions& options, int64_t tokens);

// Reads the options above (context: default the data's sequence length) from a config's model.options;
// the vocabulary is the data's.
LlamaOptions read_llama_options(util::ObjectReader& options, const InputSpec& input);
std::shared_ptr<Network> build_network(const LlamaOptions& options);
double forward_macs_of(const LlamaOptions& options, const InputSpec& input);
ModelSize model_size_of(const LlamaOptions& options);
nlohmann::json options_json_of(const LlamaOptions& options);

ModelEntry llama_entry();

}  // namespace ampbench::models
