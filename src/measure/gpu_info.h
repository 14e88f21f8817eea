#pragma once

#include <string>

#include <c10/core/Device.h>

namespace ampbench::measure {

// The GPU's marketing name ("NVIDIA H200"). Implemented in gpu_info_cuda.cpp for CUDA builds of
// LibTorch and in gpu_info_none.cpp otherwise (where no GPU can be selected in the first place).
std::string gpu_name(c10::DeviceIndex index);

}  // namespace ampbench::measure
