#pragma once

#include <cstdint>

namespace ampbench::measure {

// Counts the exact bytes held by CPU tensors. install() registers a wrapper around LibTorch's CPU
// allocator with c10 (once per process); every CPU tensor allocated afterwards is counted until it is
// freed. Thread-safe (LibTorch allocates from its intra-op threads too).
class CpuTrackingAllocator {
 public:
  static void install();
  static bool installed();
  static int64_t current_bytes();
  static int64_t peak_bytes();
  // Starts a new peak from the bytes held now.
  static void reset_peak();
};

}  // namespace ampbench::measure
