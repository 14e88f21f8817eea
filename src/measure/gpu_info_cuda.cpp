// The CUDA runtime API directly: ATen's CUDAContext.h would pull in the cuBLAS, cuSPARSE and cuSOLVER
// headers for four fields, and this way the file compiles against the runtime's headers alone.
#include <cuda_runtime_api.h>

#include "measure/gpu_info.h"

namespace ampbench::measure {
namespace {

std::optional<cudaDeviceProp> device_properties(c10::DeviceIndex index) {
  cudaDeviceProp properties{};
  if (cudaGetDeviceProperties(&properties, index) != cudaSuccess) {
    // The runtime keeps a failed call's error for the thread: cleared, or the next kernel launch that
    // checks for errors would report it as its own.
    (void)cudaGetLastError();
    return std::nullopt;
  }
  return properties;
}

// "13.0" for a driver that supports CUDA 13.0; "unknown" when the driver cannot be asked.
std::string driver_version() {
  int driver = 0;
  if (cudaDriverGetVersion(&driver) != cudaSuccess) {
    (void)cudaGetLastError();
    return "unknown";
  }
  return std::to_string(driver / 1000) + "." + std::to_string((driver % 1000) / 10);
}

}  // namespace

std::string gpu_name(c10::DeviceIndex index) {
  if (auto properties = device_properties(index)) return properties->name;
  return "cuda:" + std::to_string(index) + " (its properties could not be read)";
}

std::optional<GpuDetails> gpu_details(c10::DeviceIndex index) {
  auto properties = device_properties(index);
  if (!properties) return std::nullopt;
  return GpuDetails{properties->major, properties->minor,
                    std::to_string(properties->major) + "." + std::to_string(properties->minor),
                    static_cast<int64_t>(properties->totalGlobalMem), driver_version()};
}

}  // namespace ampbench::measure
