#include "models/gpt.h"

#include <cmath>

#include "amp/float8_linear.h"

namespace ampbench::models {

namespace F = torch::nn::functional;

GptImpl::GptImpl(const GptOptions& options) {
  token_embedding_ =
      register_module("token_embedding", torch::nn::Embedding(options.vocab(), options.d_model()));
  position_embedding_ =
      register_module("position_embedding", torch::nn::Embedding(options.context(), options.d_model()));
  for (int64_t i = 0; i < options.n_layer(); ++i)
    blocks_->push_back(
        PreNormBlock(PreNormBlockOptions(options.d_model(), options.n_head(), 4 * options.d_model())));
  register_module("blocks", blocks_);
  ln_f_ = register_module("ln_f", torch::nn::LayerNorm(torch::nn::LayerNormOptions({options.d_model()})));

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
  for (const auto& block : *blocks_) x = block->as<PreNormBlock>()->forward(x);
  // The LM head shares the token embedding's weights (weight tying), as GPT-2 does.
  return amp::linear(ln_f_->forward(x), token_embedding_->weight);
}

double gpt_forward_macs(const GptOptions& o, int64_t tokens) {
  const double d = double(o.d_model()), t = double(tokens), layers = double(o.n_layer());
  const double per_token_linear =
      layers * (3 * d * d + d * d + 4 * d * d + 4 * d * d) + d * double(o.vocab());
  const double attention = layers * 2 * t * t * d;  // QK^T and AV over all heads
  return per_token_linear * t + attention;
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

double forward_macs_of(const GptOptions& options, const InputSpec& input) {
  return gpt_forward_macs(options, input.sample_shape.at(0));
}

ModelSize model_size_of(const GptOptions& o) {
  const double d = double(o.d_model());
  const double block =
      pre_norm_block_parameters(PreNormBlockOptions(o.d_model(), o.n_head(), 4 * o.d_model()));
  // The embeddings, the blocks and the final LayerNorm; the tied LM head adds nothing.
  return {(double(o.vocab()) + double(o.context())) * d + double(o.n_layer()) * block + 2 * d, 0};
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
