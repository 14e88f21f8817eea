#include <ATen/cuda/CUDAContext.h>
#include <cuda_runtime_api.h>

#include "measure/gpu_info.h"

namespace ampbench::measure {

std::string gpu_name(c10::DeviceIndex index) { return at::cuda::getDeviceProperties(index)->name; }

std::optional<GpuDetails> gpu_details(c10::DeviceIndex index) {
  const auto* properties = at::cuda::getDeviceProperties(index);
  int driver = 0;
  cudaDriverGetVersion(&driver);  // e.g. 13000
  return GpuDetails{properties->major, properties->minor,
                    std::to_string(properties->major) + "." + std::to_string(properties->minor),
                    static_cast<int64_t>(properties->totalGlobalMem),
                    std::to_string(driver / 1000) + "." + std::to_string((driver % 1000) / 10)};
}

}  // namespace ampbench::measure
