#include "data/synthetic_dataset.h"

#include <algorithm>
#include <cmath>

#include <ATen/CPUGeneratorImpl.h>

namespace ampbench::data {
namespace {

// At most 16 factors, and few enough (a quarter of the input size) that the noisy input still
// determines them: otherwise the labels could not be learned.
int64_t latent_factors(int64_t features) { return std::clamp<int64_t>(features / 4, 1, 16); }

}  // namespace

Dataset make_synthetic_dataset(const SyntheticOptions& options) {
  torch::NoGradGuard no_grad;
  auto generator = at::make_generator<at::CPUGeneratorImpl>(options.seed);
  int64_t features = 1;
  for (auto d : options.shape) features *= d;
  const int64_t factors = latent_factors(features);
  // Drawn first and in a fixed order: the teacher and patterns depend on the seed only.
  auto patterns = torch::randn({factors, features}, generator, torch::kFloat32);
  auto teacher = torch::randn({factors, options.classes}, generator, torch::kFloat32);

  auto make_split = [&](int64_t n) {
    auto latent = torch::randn({n, factors}, generator, torch::kFloat32);
    auto noise = torch::randn({n, features}, generator, torch::kFloat32);
    // Unit variance per input value: signal and noise have variance 1 each.
    auto inputs = (latent.matmul(patterns) / std::sqrt(double(factors)) + noise) / std::sqrt(2.0);
    std::vector<int64_t> shape{n};
    shape.insert(shape.end(), options.shape.begin(), options.shape.end());
    return std::make_pair(inputs.reshape(shape), latent.matmul(teacher).argmax(1));
  };
  auto [train_inputs, train_labels] = make_split(options.train_samples);
  auto [val_inputs, val_labels] = make_split(options.val_samples);

  Dataset dataset;
  dataset.train_inputs = train_inputs;
  dataset.train_labels = train_labels;
  dataset.val_inputs = val_inputs;
  dataset.val_labels = val_labels;
  dataset.sample_shape = options.shape;
  dataset.num_classes = options.classes;
  return dataset;
}

Dataset make_synthetic_tokens(const SyntheticTokensOptions& options) {
  torch::NoGradGuard no_grad;
  auto generator = at::make_generator<at::CPUGeneratorImpl>(options.seed);
  const int64_t vocab = options.vocab, context = options.context;
  const int64_t branching = std::min(options.branching, vocab);
  const int64_t chains = std::max<int64_t>(options.classes, 1);
  // The chains first, in a fixed order: they depend on the seed only. Chain k's rows are k * vocab + token.
  auto successors = torch::randint(vocab, {chains * vocab, branching}, generator, torch::kInt64);
  auto weights = torch::rand({chains * vocab, branching}, generator, torch::kFloat32) + 0.1;

  // Next-token data: n sequences of one chain, each target its input shifted by one. A sequence
  // classifier's: each sequence drawn from the chain its label names.
  auto make_split = [&](int64_t n) {
    const auto labels = options.classes > 0 ? torch::randint(chains, {n}, generator, torch::kInt64)
                                            : torch::zeros({n}, torch::kInt64);
    auto sequences = torch::empty({n, context + 1}, torch::kInt64);
    auto current = torch::randint(vocab, {n}, generator, torch::kInt64);
    sequences.select(1, 0).copy_(current);
    for (int64_t t = 1; t <= context; ++t) {
      const auto rows = labels * vocab + current;
      auto choice = torch::multinomial(weights.index_select(0, rows), 1, /*replacement=*/true, generator);
      current = successors.index_select(0, rows).gather(1, choice).squeeze(1);
      sequences.select(1, t).copy_(current);
    }
    auto inputs = sequences.narrow(1, 0, context).clone();
    return std::make_pair(inputs, options.classes > 0 ? labels : sequences.narrow(1, 1, context).clone());
  };
  Dataset dataset;
  std::tie(dataset.train_inputs, dataset.train_labels) = make_split(options.train_samples);
  std::tie(dataset.val_inputs, dataset.val_labels) = make_split(options.val_samples);
  dataset.sample_shape = {context};
  dataset.num_classes = options.classes > 0 ? options.classes : vocab;
  return dataset;
}

}  // namespace ampbench::data
