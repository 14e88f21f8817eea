#pragma once

#include <cstdint>
#include <optional>

#include <torch/torch.h>

namespace ampbench::measure {

// Holds every tensor on `device` within a budget while in scope, so that a batch too large for it runs
// out of memory as it would on a device of that size: on the CPU the tracking allocator refuses past the
// budget; on a GPU the caching allocator is capped at the budget's share of the device's memory. The
// error is c10::OutOfMemoryError on both. Unset bytes on a GPU: the device's own memory is the budget.
class MemoryBudgetScope {
 public:
  MemoryBudgetScope(const torch::Device& device, std::optional<int64_t> bytes);
  ~MemoryBudgetScope();
  MemoryBudgetScope(const MemoryBudgetScope&) = delete;
  MemoryBudgetScope& operator=(const MemoryBudgetScope&) = delete;

 private:
  torch::Device device_;
};

// The bytes a budget leaves to a run on `device`: `bytes` when given, else a GPU's free memory now;
// nullopt on the CPU without a budget (all of the host's memory is no budget a test can reach).
std::optional<int64_t> budget_bytes(const torch::Device& device, std::optional<int64_t> bytes);

// After an out-of-memory error: gives the memory a GPU's caching allocator keeps cached back to the
// device, so the next try starts from what is really held. Nothing to do on the CPU.
void release_cached_memory(const torch::Device& device);

// Implemented in gpu_memory_cuda.cpp for CUDA builds and gpu_memory_none.cpp otherwise.
void limit_gpu_memory(c10::DeviceIndex index, std::optional<int64_t> bytes);
int64_t gpu_free_bytes(c10::DeviceIndex index);

}  // namespace ampbench::measure
