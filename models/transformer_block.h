#pragma once

#include <cstdint>

#include <torch/torch.h>

namespace ampbench::models {

// A Linear layer applied through ATen's linear, as PyTorch-Python's nn.Linear is. The C++ frontend's
// Linear::forward runs a [B, T, C] input as a matmul followed by a separate in-place bias add: one more
// pass over the output each way, and under autocast a second rounding to 16 bits. ATen folds the bias
// into the one GEMM.
torch::Tensor affine(const torch::nn::Linear& layer, const torch::Tensor& x);

// Multi-head self-attention through scaled_dot_product_attention, so that CUDA picks its fused kernels:
// one packed query/key/value projection (the layout of nn.MultiheadAttention's in_proj), then an output
// projection, both with biases.
class SelfAttentionImpl : public torch::nn::Module {
 public:
  SelfAttentionImpl(int64_t d_model, int64_t n_head, bool causal);
  torch::Tensor forward(const torch::Tensor& x);

 private:
  int64_t n_head_;
  bool causal_;
  torch::nn::Linear qkv_{nullptr}, projection_{nullptr};
};
TORCH_MODULE(SelfAttention);

struct PreNormBlockOptions {
  PreNormBlockOptions(int64_t d_model, int64_t n_head, int64_t d_mlp)
      : d_model_(d_model), n_head_(n_head), d_mlp_(d_mlp) {}
  TORCH_ARG(int64_t, d_model);
  TORCH_ARG(int64_t, n_head);
  TORCH_ARG(int64_t, d_mlp);  // the MLP's hidden width
  TORCH_ARG(bool, causal) = true;
  TORCH_ARG(bool, tanh_gelu) = true;  // GPT-2's tanh approximation of GELU; the exact erf form otherwise
  TORCH_ARG(double, norm_eps) = 1e-5;
};

// Pre-LayerNorm transformer block, as GPT-2 and ViT have it: x + attention(ln_1(x)), then
// x + contract(GELU(expand(ln_2(x)))).
// A block's parameters: two LayerNorms, the attention's packed and output projections, the MLP.
double pre_norm_block_parameters(const PreNormBlockOptions& options);

class PreNormBlockImpl : public torch::nn::Module {
 public:
  explicit PreNormBlockImpl(const PreNormBlockOptions& options);
  torch::Tensor forward(torch::Tensor x);

 private:
  bool tanh_gelu_;
  torch::nn::LayerNorm ln_1_{nullptr}, ln_2_{nullptr};
  SelfAttention attention_{nullptr};
  torch::nn::Linear expand_{nullptr}, contract_{nullptr};
};
TORCH_MODULE(PreNormBlock);

}  // namespace ampbench::models
