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
    static_bytes_.reset();
    CpuTrackingAllocator::reset_peak();
  }

 protected:
  int64_t current_bytes() const override { return CpuTrackingAllocator::current_bytes(); }
  MemoryReading read_peaks() const override {
    MemoryReading reading;
    reading.probe = "cpu-tracking-allocator";
    reading.peak_bytes = CpuTrackingAllocator::peak_bytes() - baseline_;
    return reading;
  }
};

// Device-generic accelerator statistics: on CUDA they are the caching allocator's.
class AcceleratorMemoryProbe final : public MemoryProbe {
 public:
  explicit AcceleratorMemoryProbe(c10::DeviceIndex index) : index_(index) {}
  void begin() override {
    // Cached blocks that earlier trials left would count in this trial's reserved peak, and would spare
    // a later mode the allocations the first one paid for: each trial starts from an empty cache.
    at::accelerator::emptyCache();
    at::accelerator::resetPeakStats(index_);
    baseline_ = current_bytes();
    static_bytes_.reset();
  }

 protected:
  int64_t current_bytes() const override {
    return at::accelerator::getDeviceStats(index_).allocated_bytes[kAggregate].current;
  }
  MemoryReading read_peaks() const override {
    auto stats = at::accelerator::getDeviceStats(index_);
    MemoryReading reading;
    reading.probe = "cuda-caching-allocator";
    reading.peak_bytes = stats.allocated_bytes[kAggregate].peak - baseline_;
    reading.peak_reserved_bytes = stats.reserved_bytes[kAggregate].peak;
    return reading;
  }

 private:
  static constexpr size_t kAggregate = static_cast<size_t>(c10::CachingAllocator::StatType::AGGREGATE);
  c10::DeviceIndex index_;
};

}  // namespace

std::unique_ptr<MemoryProbe> make_memory_probe(const torch::Device& device) {
  if (device.is_cpu()) return std::make_unique<CpuMemoryProbe>();
  // An index of -1 ("the current device") would be refused by the allocator's statistics only later.
  TORCH_CHECK(device.has_index(), "a memory probe needs a device with an index, such as cuda:0, got ",
              device.str());
  return std::make_unique<AcceleratorMemoryProbe>(device.index());
}

}  // namespace ampbench::measure
