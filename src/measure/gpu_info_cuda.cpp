// The CUDA runtime API directly: ATen's CUDAContext.h would pull in the cuBLAS, cuSPARSE and cuSOLVER
// headers for four fields, and this way the file compiles against the runtime's headers alone.
#include <cuda_runtime_api.h>

#include "measure/gpu_info.h"

namespace ampbench::measure {
namespace {

std::optional<cudaDeviceProp> device_properties(c10::DeviceIndex index) {
  cudaDeviceProp properties{};
  if (cudaGetDeviceProperties(&properties, index) != cudaSuccess) return std::nullopt;
  return properties;
}

}  // namespace

std::string gpu_name(c10::DeviceIndex index) {
  if (auto properties = device_properties(index)) return properties->name;
  return "cuda:" + std::to_string(index) + " (its properties could not be read)";
}

std::optional<GpuDetails> gpu_details(c10::DeviceIndex index) {
  auto properties = device_properties(index);
  if (!properties) return std::nullopt;
  int driver = 0;
  cudaDriverGetVersion(&driver);  // e.g. 13000
  return GpuDetails{properties->major, properties->minor,
                    std::to_string(properties->major) + "." + std::to_string(properties->minor),
                    static_cast<int64_t>(properties->totalGlobalMem),
                    std::to_string(driver / 1000) + "." + std::to_string((driver % 1000) / 10)};
}

}  // namespace ampbench::measure
