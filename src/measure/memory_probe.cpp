#include "measure/memory_probe.h"

#include <ATen/DeviceAccelerator.h>

#include "measure/cpu_tracking_allocator.h"

namespace ampbench::measure {
namespace {

class CpuMemoryProbe final : public MemoryProbe {
 public:
  CpuMemoryProbe() { CpuTrackingAllocator::install(); }
  void begin() override {
    baseline_ = CpuTrackingAllocator::current_bytes();
    CpuTrackingAllocator::reset_peak();
  }
  MemoryReading read() const override {
    return {"cpu-tracking-allocator", baseline_, CpuTrackingAllocator::peak_bytes() - baseline_,
            std::nullopt};
  }

 private:
  int64_t baseline_ = 0;
};

// Device-generic accelerator statistics: on CUDA they are the caching allocator's.
class AcceleratorMemoryProbe final : public MemoryProbe {
 public:
  explicit AcceleratorMemoryProbe(c10::DeviceIndex index) : index_(index) {}
  void begin() override {
    at::accelerator::resetPeakStats(index_);
    baseline_ = aggregate_current(at::accelerator::getDeviceStats(index_).allocated_bytes);
  }
  MemoryReading read() const override {
    auto stats = at::accelerator::getDeviceStats(index_);
    return {"cuda-caching-allocator", baseline_, aggregate_peak(stats.allocated_bytes) - baseline_,
            aggregate_peak(stats.reserved_bytes)};
  }

 private:
  static int64_t aggregate_current(const auto& stats) { return stats[kAggregate].current; }
  static int64_t aggregate_peak(const auto& stats) { return stats[kAggregate].peak; }
  static constexpr size_t kAggregate = static_cast<size_t>(c10::CachingAllocator::StatType::AGGREGATE);

  c10::DeviceIndex index_;
  int64_t baseline_ = 0;
};

}  // namespace

std::unique_ptr<MemoryProbe> make_memory_probe(const torch::Device& device) {
  if (device.is_cpu()) return std::make_unique<CpuMemoryProbe>();
  return std::make_unique<AcceleratorMemoryProbe>(device.index());
}

}  // namespace ampbench::measure
