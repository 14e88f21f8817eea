#include <gtest/gtest.h>
#include <torch/torch.h>

#include "config/experiment_config.h"
#include "experiment_runs.h"
#include "measure/cpu_tracking_allocator.h"
#include "measure/device.h"
#include "measure/memory_probe.h"
#include "passes/experiment.h"

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

// The CUDA caching allocator's statistics, read the same way; each begin() empties the cache, so a
// trial's reserved peak does not carry the blocks an earlier trial left cached.
TEST(AcceleratorMemoryProbe, OnAGpuReportsThePeakAboveTheBaselineAndStartsFromAnEmptyCache) {
  if (!torch::cuda::is_available()) GTEST_SKIP() << "no CUDA GPU";
  const auto on_gpu =
      torch::TensorOptions().device(ampbench::measure::resolve_device("cuda")).dtype(torch::kUInt8);
  auto probe = ampbench::measure::make_memory_probe(on_gpu.device());
  auto held = torch::empty({1 << 20}, on_gpu);
  probe->begin();
  {
    auto a = torch::empty({2 << 20}, on_gpu);  // sizes in whole 512-byte blocks: counted exactly
    auto b = torch::empty({3 << 20}, on_gpu);
  }
  auto reading = probe->read();
  EXPECT_EQ(reading.probe, "cuda-caching-allocator");
  EXPECT_EQ(reading.peak_bytes, 5 << 20);
  ASSERT_TRUE(reading.peak_reserved_bytes.has_value());
  EXPECT_GE(*reading.peak_reserved_bytes, 6 << 20);
  // The 2 and 3 MiB blocks came from a 20 MiB segment, now unused: a new begin() releases it.
  probe->begin();
  EXPECT_EQ(probe->read().peak_bytes, 0);
  EXPECT_LT(*probe->read().peak_reserved_bytes, 20 << 20);
}

// End to end: a wide MLP on a batch of 2, whose weights, gradients and momentum dwarf its activations.
// What the report calls activations (peak minus that static memory) must stay small: anything the loop
// keeps alive across steps (old gradients, a copy of the weights) shows up there as a whole set of
// parameters.
TEST(ActivationMemory, ExcludesTheStaticMemoryAndNothingLeftOverFromTheLastStep) {
  auto config = ampbench::config::parse_experiment_config({
      {"name", "activations"},
      {"model", {{"type", "mlp"}, {"options", {{"width", 512}, {"depth", 1}}}}},
      {"data",
       {{"synthetic", {{"train_samples", 16}, {"val_samples", 4}, {"shape", {512}}, {"classes", 4}}}}},
      {"train",
       {{"epochs", 1}, {"batch_size", 2}, {"optimizer", {{"type", "sgd"}, {"lr", 0.01}, {"momentum", 0.9}}}}},
      {"precision", {{"modes", {"fp32"}}}},
      {"device", "cpu"},
  });
  auto report = ampbench::testing::run_and_analyse(config);
  ASSERT_EQ(report.summary.size(), 1u);
  const auto& fp32 = report.summary[0];
  const int64_t parameter_bytes = (512 * 512 + 512 + 512 * 4 + 4) * 4;
  // Weights, gradients and momentum, plus a little for the per-step bookkeeping.
  EXPECT_GE(fp32.static_bytes.value(), 3 * parameter_bytes);
  EXPECT_LT(fp32.static_bytes.value(), 3 * parameter_bytes + parameter_bytes / 10);
  EXPECT_LT(fp32.activation_bytes.value(), parameter_bytes / 4) << "static " << *fp32.static_bytes;
}
