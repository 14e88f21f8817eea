#pragma once

#include <cstdint>
#include <vector>

namespace ampbench::train {

// `samples` steps out of `total` (all of them when fewer), 1-based, evenly spaced, the last one included.
std::vector<int64_t> spread_steps(int64_t total, int64_t samples);

}  // namespace ampbench::train
