#include "max_batch/batch_search.h"

#include <algorithm>

namespace ampbench::max_batch {
namespace {

bool try_batch(BatchSearch& search, int64_t batch, const std::function<bool(int64_t)>& fits) {
  const bool fit = fits(batch);
  search.tries.push_back({batch, fit});
  if (fit) {
    search.largest = std::max(search.largest, batch);
  } else if (!search.smallest_refused || batch < *search.smallest_refused) {
    search.smallest_refused = batch;
  }
  return fit;
}

}  // namespace

BatchSearch search_largest_batch(int64_t limit, const std::function<bool(int64_t)>& fits) {
  BatchSearch search;
  // Doubling: 1, 2, 4, ... and the limit itself when the doubling would pass it.
  for (int64_t batch = 1;; batch = std::min(batch * 2, limit)) {
    if (!try_batch(search, batch, fits)) break;
    if (batch == limit) {
      search.reached_limit = true;
      return search;
    }
  }
  // Bisection: largest fits, smallest_refused does not.
  while (*search.smallest_refused - search.largest > 1) {
    try_batch(search, search.largest + (*search.smallest_refused - search.largest) / 2, fits);
  }
  return search;
}

}  // namespace ampbench::max_batch
