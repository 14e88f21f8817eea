#pragma once

#include <cstdint>
#include <optional>

namespace ampbench::measure {

// Counts the exact bytes held by CPU tensors. install() registers a wrapper around LibTorch's CPU
// allocator with c10 (once per process); every CPU tensor allocated afterwards is counted until it is
// freed. Thread-safe (LibTorch allocates from its intra-op threads too). With a limit set, an allocation
// that would take the bytes held past it throws c10::OutOfMemoryError, as the CUDA caching allocator does
// when a GPU is full, so that a memory budget behaves on the CPU as a device's memory does.
class CpuTrackingAllocator {
 public:
  static void install();
  static bool installed();
  static int64_t current_bytes();
  static int64_t peak_bytes();
  // Starts a new peak from the bytes held now.
  static void reset_peak();
  // The most bytes CPU tensors may hold together; unset: no limit.
  static void set_limit(std::optional<int64_t> bytes);
};

}  // namespace ampbench::measure
