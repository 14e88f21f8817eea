#include "measure/memory_budget.h"

#include <ATen/DeviceAccelerator.h>

#include "measure/cpu_tracking_allocator.h"

namespace ampbench::measure {

MemoryBudgetScope::MemoryBudgetScope(const torch::Device& device, std::optional<int64_t> bytes)
    : device_(device) {
  if (device_.is_cpu()) {
    CpuTrackingAllocator::install();
    CpuTrackingAllocator::set_limit(bytes);
  } else {
    limit_gpu_memory(device_.index(), bytes);
  }
}

MemoryBudgetScope::~MemoryBudgetScope() {
  if (device_.is_cpu()) {
    CpuTrackingAllocator::set_limit(std::nullopt);
  } else {
    limit_gpu_memory(device_.index(), std::nullopt);
  }
}

std::optional<int64_t> budget_bytes(const torch::Device& device, std::optional<int64_t> bytes) {
  if (bytes || device.is_cpu()) return bytes;
  return gpu_free_bytes(device.index());
}

void release_cached_memory(const torch::Device& device) {
  if (!device.is_cpu()) at::accelerator::emptyCache();
}

}  // namespace ampbench::measure
