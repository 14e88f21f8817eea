#include "passes/sampled_steps.h"

#include <algorithm>

namespace ampbench::train {

std::vector<int64_t> spread_steps(int64_t total, int64_t samples) {
  std::vector<int64_t> steps;
  samples = std::min(total, samples);
  for (int64_t k = 1; k <= samples; ++k) steps.push_back((k * total + samples - 1) / samples);
  return steps;
}

}  // namespace ampbench::train
