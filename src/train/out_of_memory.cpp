#include "train/out_of_memory.h"

#include <array>
#include <string_view>

namespace ampbench::train {

bool is_out_of_memory(const c10::Error& error) {
  if (dynamic_cast<const c10::OutOfMemoryError*>(&error)) return true;
  static constexpr std::array<std::string_view, 4> kAllocationFailures{
      "DefaultCPUAllocator: can't allocate memory",  // posix_memalign refused (Linux, macOS)
      "DefaultCPUAllocator: not enough memory",      // the same on other platforms, and older LibTorch
      "_STATUS_ALLOC_FAILED",                        // CUBLAS_, CUDNN_, CUSOLVER_, CUSPARSE_
      "CUDA error: out of memory",                   // cudaErrorMemoryAllocation
  };
  const std::string_view message = error.what_without_backtrace();
  for (auto failure : kAllocationFailures)
    if (message.find(failure) != std::string_view::npos) return true;
  return false;
}

}  // namespace ampbench::train
