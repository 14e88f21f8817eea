// What the process got of the CPU between two samples.
#include <gtest/gtest.h>

#include <chrono>

#include "measure/cpu_usage.h"

using ampbench::measure::cpu_usage_between;
using ampbench::measure::CpuUsageSample;

TEST(CpuUsage, SharesAreOfTheCpuTimeTheThreadsCouldUse) {
  const CpuUsageSample start{10.0, 5, 1.0}, end{11.2, 25, 1.6};
  const auto usage = cpu_usage_between(start, end, 1.0, 2);
  EXPECT_NEAR(usage.cpu_seconds, 1.2, 1e-12);
  EXPECT_NEAR(usage.cpu_share, 0.6, 1e-12);
  EXPECT_EQ(usage.involuntary_switches, 20);
  ASSERT_TRUE(usage.run_queue_wait_share);
  EXPECT_NEAR(*usage.run_queue_wait_seconds, 0.6, 1e-12);
  EXPECT_NEAR(*usage.run_queue_wait_share, 0.3, 1e-12);
}

// A thread that ended between the samples takes its wait with it: never a negative figure; without the
// kernel's run-queue figures the wait is unknown, not zero.
TEST(CpuUsage, NoNegativeWaitAndNoWaitWithoutTheKernelsFigures) {
  EXPECT_EQ(*cpu_usage_between({0, 0, 2.0}, {0.5, 0, 1.5}, 1.0, 1).run_queue_wait_seconds, 0.0);
  EXPECT_FALSE(cpu_usage_between({0, 0, std::nullopt}, {0.5, 0, 1.0}, 1.0, 1).run_queue_wait_share);
}

// A real sample: a busy loop of 50 ms on this thread shows as CPU time (how much depends on the load).
TEST(CpuUsage, ABusyLoopShowsAsCpuTime) {
  const auto start = ampbench::measure::sample_cpu_usage();
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(50);
  volatile double sink = 0;
  while (std::chrono::steady_clock::now() < until) sink = sink + 1;
  const auto usage = cpu_usage_between(start, ampbench::measure::sample_cpu_usage(), 0.05, 1);
  EXPECT_GT(usage.cpu_seconds, 0.0);
}
