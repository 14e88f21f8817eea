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

Dataset make_synthetic_dataset(const SyntheticDataOptions& options, const torch::Device& device) {
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
  dataset.train_inputs = train_inputs.to(device);
  dataset.train_labels = train_labels.to(device);
  dataset.val_inputs = val_inputs.to(device);
  dataset.val_labels = val_labels.to(device);
  dataset.sample_shape = options.shape;
  dataset.num_classes = options.classes;
  return dataset;
}

}  // namespace ampbench::data
