#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

namespace ampbench::max_batch {

// One batch size tried: whether it fit.
struct BatchTry {
  int64_t batch = 0;
  bool fits = false;
};

// The largest batch that fits, found by doubling from 1 until a batch does not fit (or the limit is
// reached), then bisecting between the last that fit and the first that did not. It assumes what every
// training step's memory does: a batch that fits, every smaller one fits too.
struct BatchSearch {
  int64_t largest = 0;                      // 0: not even a batch of 1 fits
  std::optional<int64_t> smallest_refused;  // the smallest batch tried that did not fit
  bool reached_limit = false;               // the limit fits: it, not memory, bounds the batch
  std::vector<BatchTry> tries;              // in the order they were made
};

// Searches batches 1..limit (limit >= 1) with `fits`, which is called once per batch tried.
BatchSearch search_largest_batch(int64_t limit, const std::function<bool(int64_t)>& fits);

}  // namespace ampbench::max_batch
