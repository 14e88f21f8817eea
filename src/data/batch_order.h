#pragma once

#include <cstdint>

#include <torch/torch.h>

namespace ampbench::data {

// The order in which an epoch visits the training samples: a permutation of [0, n) drawn from a CPU
// generator seeded with (seed, epoch) alone, so every precision mode sees exactly the same batches.
torch::Tensor epoch_order(uint64_t seed, int64_t epoch, int64_t n);

}  // namespace ampbench::data
