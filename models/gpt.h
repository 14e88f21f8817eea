#pragma once

#include <cstdint>

#include <nlohmann/json.hpp>

#include "models/network.h"
#include "models/registry.h"
#include "models/transformer_block.h"
#include "util/json_reader.h"

namespace ampbench::models {

struct GptOptions {
  GptOptions(int64_t vocab, int64_t context) : vocab_(vocab), context_(context) {}
  TORCH_ARG(int64_t, vocab);
  TORCH_ARG(int64_t, context);  // positions the model has embeddings for (block size)
  TORCH_ARG(int64_t, n_layer) = 12;
  TORCH_ARG(int64_t, n_head) = 12;
  TORCH_ARG(int64_t, d_model) = 768;
};

// A GPT-2-style decoder-only language model: learned token and position embeddings, n_layer blocks, a
// final LayerNorm, and an LM head tied to the token embeddings. Blocks are causal pre-LayerNorm blocks with
// a 4x tanh-GELU MLP; linear layers have biases. Token ids
// [N, T] (T <= context) to next-token logits [N, T, vocab]. GPT-2 small (12 layers, 12 heads, 768 wide,
// vocab 50257, context 1024) has 124,439,808 parameters.
class GptImpl : public Network {
 public:
  explicit GptImpl(const GptOptions& options);
  torch::Tensor forward(const torch::Tensor& tokens) override;

 private:
  torch::nn::Embedding token_embedding_{nullptr}, position_embedding_{nullptr};
  torch::nn::ModuleList blocks_;
  torch::nn::LayerNorm ln_f_{nullptr};
};

// Multiply-adds of one forward pass over a sequence of `tokens`: every linear layer, the LM head, and
// the two attention matmuls (QK^T and AV, counted over the whole T x T square as is the convention).
double gpt_forward_macs(const GptOptions& options, int64_t tokens);

// Reads n_layer, n_head, d_model and context (default: the data's sequence length) from a config's
// model.options; the vocabulary is the data's.
GptOptions read_gpt_options(util::ObjectReader& options, const InputSpec& input);
std::shared_ptr<Network> build_network(const GptOptions& options);
double forward_macs_of(const GptOptions& options, const InputSpec& input);
ModelSize model_size_of(const GptOptions& options);
nlohmann::json options_json_of(const GptOptions& options);

ModelEntry gpt_entry();

}  // namespace ampbench::models
