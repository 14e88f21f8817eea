// The search for the largest batch that fits, and the memory budget that makes memory run out on the CPU
// as it does on a device.
#include <gtest/gtest.h>

#include <set>

#include <torch/torch.h>

#include "max_batch/batch_search.h"
#include "measure/cpu_tracking_allocator.h"
#include "measure/memory_budget.h"
#include "train/out_of_memory.h"

namespace {

using ampbench::max_batch::search_largest_batch;
using ampbench::measure::CpuTrackingAllocator;

TEST(BatchSearch, FindsTheExactLargestBatchTryingEachBatchOnce) {
  for (int64_t largest : {1, 2, 3, 37, 64, 100, 511, 999}) {
    std::set<int64_t> tried;
    const auto search = search_largest_batch(1000, [&](int64_t batch) {
      EXPECT_TRUE(tried.insert(batch).second) << "batch " << batch << " tried twice";
      return batch <= largest;
    });
    EXPECT_EQ(search.largest, largest);
    ASSERT_TRUE(search.smallest_refused);
    EXPECT_EQ(*search.smallest_refused, largest + 1);
    EXPECT_FALSE(search.reached_limit);
    // Doubling and bisection: about two tries per power of two, not a try per batch.
    EXPECT_LE(search.tries.size(), 21u) << largest;
    EXPECT_EQ(search.tries.size(), tried.size());
    for (const auto& t : search.tries) EXPECT_EQ(t.fits, t.batch <= largest);
  }
}

TEST(BatchSearch, ALimitThatFitsBoundsTheBatchAndNoFitIsZero) {
  for (int64_t limit : {1, 5, 682}) {
    const auto search = search_largest_batch(limit, [](int64_t) { return true; });
    EXPECT_EQ(search.largest, limit);
    EXPECT_TRUE(search.reached_limit);
    EXPECT_FALSE(search.smallest_refused);
    EXPECT_EQ(search.tries.back().batch, limit);
  }
  const auto none = search_largest_batch(64, [](int64_t) { return false; });
  EXPECT_EQ(none.largest, 0);
  EXPECT_EQ(none.smallest_refused, 1);
  EXPECT_EQ(none.tries.size(), 1u);
}

TEST(MemoryBudget, TheCpuBudgetRaisesTheOutOfMemoryErrorOfADeviceAndHoldsNothingBack) {
  CpuTrackingAllocator::install();
  const auto held = CpuTrackingAllocator::current_bytes();
  {
    ampbench::measure::MemoryBudgetScope budget(torch::kCPU, held + (1 << 20));
    try {
      auto big = torch::empty({1 << 19}, torch::kFloat);  // 2 MiB
      ADD_FAILURE() << "2 MiB allocated within a budget of 1 MiB more than was held";
    } catch (const c10::OutOfMemoryError& e) {
      EXPECT_TRUE(ampbench::train::is_out_of_memory(e));
      EXPECT_NE(std::string(e.what_without_backtrace()).find("CPU tracking allocator: out of memory"),
                std::string::npos);
    }
    EXPECT_EQ(CpuTrackingAllocator::current_bytes(), held);  // the refused bytes are not counted
    auto small = torch::empty({1 << 17}, torch::kFloat);     // 512 KiB still fits
    EXPECT_EQ(CpuTrackingAllocator::current_bytes(), held + (1 << 19));
  }
  auto big = torch::empty({1 << 19}, torch::kFloat);  // the scope lifted the budget
  EXPECT_EQ(big.numel(), 1 << 19);
}

}  // namespace
