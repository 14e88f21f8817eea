#include <algorithm>

#include <c10/cuda/CUDACachingAllocator.h>
#include <cuda_runtime_api.h>

#include "measure/gpu_info.h"
#include "measure/memory_budget.h"

namespace ampbench::measure {

void limit_gpu_memory(c10::DeviceIndex index, std::optional<int64_t> bytes) {
  double fraction = 1.0;
  if (bytes) {
    const auto gpu = gpu_details(index);
    TORCH_CHECK(gpu && gpu->memory_bytes > 0, "cannot read the memory of cuda:", index);
    fraction = std::min(1.0, static_cast<double>(*bytes) / static_cast<double>(gpu->memory_bytes));
  }
  c10::cuda::CUDACachingAllocator::setMemoryFraction(fraction, index);
}

int64_t gpu_free_bytes(c10::DeviceIndex index) {
  int previous = 0;
  TORCH_CHECK(cudaGetDevice(&previous) == cudaSuccess, "cannot read the current CUDA device");
  TORCH_CHECK(cudaSetDevice(index) == cudaSuccess, "cannot select cuda:", index);
  size_t free = 0, total = 0;
  const auto status = cudaMemGetInfo(&free, &total);
  cudaSetDevice(previous);
  TORCH_CHECK(status == cudaSuccess, "cannot read the free memory of cuda:", index);
  return static_cast<int64_t>(free);
}

}  // namespace ampbench::measure
