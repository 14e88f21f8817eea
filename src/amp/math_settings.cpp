#include "amp/math_settings.h"

#include <ATen/Context.h>

namespace ampbench::amp {
namespace {

// The per-backend precision settings, not the legacy allowTF32 setters, which warn once per process
// since LibTorch 2.9.
void set_tf32(at::Float32Op op, bool on) {
  at::globalContext().setFloat32Precision(at::Float32Backend::CUDA, op,
                                          on ? at::Float32Precision::TF32 : at::Float32Precision::IEEE);
}

// The matmul precision of torch.set_float32_matmul_precision too (it does not warn): LibTorch's legacy
// getter, which code may still ask, raises an error when it disagrees with the per-backend setting.
void set_tf32_matmul(bool on) {
  at::globalContext().setFloat32MatmulPrecision(on ? "high" : "highest");
  set_tf32(at::Float32Op::MATMUL, on);
}

bool tf32_on(at::Float32Op op) {
  return at::globalContext().float32Precision(at::Float32Backend::CUDA, op) == at::Float32Precision::TF32;
}

void apply(const MathSettings& settings) {
  set_tf32_matmul(settings.tf32_matmul);
  set_tf32(at::Float32Op::CONV, settings.tf32_conv);
  at::globalContext().setBenchmarkCuDNN(settings.cudnn_benchmark);
}

}  // namespace

MathSettings settings_for(PrecisionMode mode, c10::DeviceType device_type, bool cudnn_benchmark) {
  const bool tf32 = device_type == c10::DeviceType::CUDA && recipe_of(mode).tf32;
  return {tf32, tf32, cudnn_benchmark};
}

MathSettings current_math_settings() {
  return {tf32_on(at::Float32Op::MATMUL), tf32_on(at::Float32Op::CONV), at::globalContext().benchmarkCuDNN()};
}

MathSettingsScope::MathSettingsScope(const MathSettings& settings) : previous_(current_math_settings()) {
  apply(settings);
}

MathSettingsScope::~MathSettingsScope() { apply(previous_); }

}  // namespace ampbench::amp
