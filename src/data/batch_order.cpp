#include "data/batch_order.h"

#include <ATen/CPUGeneratorImpl.h>

namespace ampbench::data {

torch::Tensor epoch_order(uint64_t seed, int64_t epoch, int64_t n) {
  // A large odd multiplier keeps the per-epoch streams apart for neighbouring seeds.
  auto generator =
      at::make_generator<at::CPUGeneratorImpl>(seed + 0x9E3779B97F4A7C15ULL * uint64_t(epoch + 1));
  return torch::randperm(n, generator, torch::kInt64);
}

}  // namespace ampbench::data
