#include "amp/mode_support.h"

namespace ampbench::amp {
namespace {

bool at_least(const ComputeCapability& c, int major, int minor) {
  return c.major > major || (c.major == major && c.minor >= minor);
}

std::string text(const ComputeCapability& c) {
  return std::to_string(c.major) + "." + std::to_string(c.minor);
}

}  // namespace

ModeSupport check_mode_support(PrecisionMode mode, c10::DeviceType device_type,
                               std::optional<ComputeCapability> capability) {
  if (device_type == c10::DeviceType::CPU) {
    if (mode == PrecisionMode::tf32) {
      return {"TF32 is a format of NVIDIA tensor cores (compute capability 8.0+); the CPU has none", {}};
    }
    return {};
  }
  if (!capability) return {};  // an accelerator that reports none: let LibTorch decide
  const auto& c = *capability;
  if ((mode == PrecisionMode::bf16 || mode == PrecisionMode::tf32) && !at_least(c, 8, 0)) {
    return {std::string(to_string(mode)) + " needs compute capability 8.0 or newer; this GPU has " + text(c),
            {}};
  }
  if (mode == PrecisionMode::fp16 && !at_least(c, 7, 0)) {
    return {{},
            "this GPU (compute capability " + text(c) +
                ") has no tensor cores: fp16 runs on ordinary CUDA cores, so expect little speed-up"};
  }
  return {};
}

}  // namespace ampbench::amp
