#include <ATen/cuda/CUDAContext.h>

#include "measure/gpu_info.h"

namespace ampbench::measure {

std::string gpu_name(c10::DeviceIndex index) { return at::cuda::getDeviceProperties(index)->name; }

}  // namespace ampbench::measure
