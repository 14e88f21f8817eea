#include <gtest/gtest.h>
#include <torch/torch.h>

#include "measure/cpu_tracking_allocator.h"
#include "measure/memory_probe.h"

using ampbench::measure::CpuTrackingAllocator;

TEST(CpuTrackingAllocator, CountsExactlyTheBytesHeldByTensors) {
  auto probe = ampbench::measure::make_memory_probe(torch::kCPU);
  ASSERT_TRUE(CpuTrackingAllocator::installed());
  int64_t before = CpuTrackingAllocator::current_bytes();
  {
    auto t = torch::empty({1024, 256}, torch::kFloat32);  // exactly 1 MiB
    EXPECT_EQ(CpuTrackingAllocator::current_bytes() - before, 1 << 20);
  }
  EXPECT_EQ(CpuTrackingAllocator::current_bytes(), before);
}

TEST(CpuTrackingAllocator, ProbeReportsThePeakAboveTheBaseline) {
  auto probe = ampbench::measure::make_memory_probe(torch::kCPU);
  auto held = torch::empty({1 << 20}, torch::kUInt8);  // part of the baseline, not of the peak
  probe->begin();
  {
    auto a = torch::empty({2 << 20}, torch::kUInt8);
    auto b = torch::empty({3 << 20}, torch::kUInt8);
  }
  auto c = torch::empty({1 << 20}, torch::kUInt8);
  auto reading = probe->read();
  EXPECT_EQ(reading.probe, "cpu-tracking-allocator");
  EXPECT_EQ(reading.peak_bytes, 5 << 20);
  EXPECT_FALSE(reading.peak_reserved_bytes.has_value());
  // A new begin() starts a new peak from what is held now.
  probe->begin();
  EXPECT_EQ(probe->read().peak_bytes, 0);
}
