#include "measure/gpu_info.h"

namespace ampbench::measure {

std::string gpu_name(c10::DeviceIndex index) {
  return "cuda:" + std::to_string(index) + " (this LibTorch build has no CUDA)";
}

std::optional<GpuDetails> gpu_details(c10::DeviceIndex) { return std::nullopt; }

}  // namespace ampbench::measure
