#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <c10/core/Device.h>

namespace ampbench::measure {

// The GPU's marketing name ("NVIDIA H200"). Implemented in gpu_info_cuda.cpp for CUDA builds of
// LibTorch and in gpu_info_none.cpp otherwise (where no GPU can be selected in the first place).
std::string gpu_name(c10::DeviceIndex index);

// What a GPU report needs beside the name; nullopt without CUDA.
struct GpuDetails {
  int capability_major = 0;
  int capability_minor = 0;
  std::string capability;  // "9.0"
  int64_t memory_bytes = 0;
  std::string driver;  // CUDA driver API version, "13.0"
};
std::optional<GpuDetails> gpu_details(c10::DeviceIndex index);

}  // namespace ampbench::measure
