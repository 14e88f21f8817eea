#pragma once

#include <optional>
#include <string>

#include <c10/core/DeviceType.h>

#include "amp/precision_mode.h"

namespace ampbench::amp {

struct ComputeCapability {
  int major = 0;
  int minor = 0;
};

// Whether a mode can run on a device, decided before any training.
struct ModeSupport {
  std::optional<std::string> skip_reason;  // set: the mode cannot run here and is reported as skipped
  std::optional<std::string> caveat;       // set: it runs, but the reader should know this
};

// bf16 and tf32 need compute capability 8.0 (Ampere) or newer; fp16 runs everywhere but has no tensor
// cores below 7.0; TF32 does not exist on the CPU. `capability` is the GPU's (ignored on the CPU).
ModeSupport check_mode_support(PrecisionMode mode, c10::DeviceType device_type,
                               std::optional<ComputeCapability> capability);

}  // namespace ampbench::amp
