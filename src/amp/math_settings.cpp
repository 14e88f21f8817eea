#include "amp/math_settings.h"

#include <ATen/Context.h>

namespace ampbench::amp {
namespace {

void apply(const MathSettings& settings) {
  auto& context = at::globalContext();
  context.setAllowTF32CuBLAS(settings.tf32_matmul);
  context.setAllowTF32CuDNN(settings.tf32_conv);
  context.setBenchmarkCuDNN(settings.cudnn_benchmark);
}

}  // namespace

MathSettings settings_for(PrecisionMode mode, c10::DeviceType device_type, bool cudnn_benchmark) {
  const bool tf32 = device_type == c10::DeviceType::CUDA && allows_tf32(mode);
  return {tf32, tf32, cudnn_benchmark};
}

MathSettings current_math_settings() {
  const auto& context = at::globalContext();
  return {context.allowTF32CuBLAS(), context.allowTF32CuDNN(), context.benchmarkCuDNN()};
}

MathSettingsScope::MathSettingsScope(const MathSettings& settings) : previous_(current_math_settings()) {
  apply(settings);
}

MathSettingsScope::~MathSettingsScope() { apply(previous_); }

}  // namespace ampbench::amp
