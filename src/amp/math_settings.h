#pragma once

#include <c10/core/DeviceType.h>

#include "amp/precision_mode.h"

namespace ampbench::amp {

// LibTorch's process-wide math switches that a mode depends on.
struct MathSettings {
  bool tf32_matmul = false;      // cuBLAS may run fp32 matmuls in TF32
  bool tf32_conv = false;        // cuDNN may run fp32 convolutions in TF32
  bool cudnn_benchmark = false;  // cuDNN times candidate algorithms and keeps the fastest per shape

  bool operator==(const MathSettings&) const = default;
};

// What `mode` runs with: on CUDA, TF32 exactly as recipe_of(mode).tf32 says (fp32 strict, with TF32
// explicitly off); elsewhere TF32 off, so that no fp32 precision switch can reach another backend's
// kernels. cuDNN's autotuner as the config asks.
MathSettings settings_for(PrecisionMode mode, c10::DeviceType device_type, bool cudnn_benchmark);

// The settings in force now.
MathSettings current_math_settings();

// Applies settings for a scope and restores the previous ones when it ends, so one mode's TF32 or
// autotuning never leaks into the next.
class MathSettingsScope {
 public:
  explicit MathSettingsScope(const MathSettings& settings);
  ~MathSettingsScope();
  MathSettingsScope(const MathSettingsScope&) = delete;
  MathSettingsScope& operator=(const MathSettingsScope&) = delete;

 private:
  MathSettings previous_;
};

}  // namespace ampbench::amp
