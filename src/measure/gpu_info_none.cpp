#include "measure/gpu_info.h"

namespace ampbench::measure {

std::string gpu_name(c10::DeviceIndex index) {
  return "cuda:" + std::to_string(index) + " (this LibTorch build has no CUDA)";
}

}  // namespace ampbench::measure
