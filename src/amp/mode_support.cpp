#include "amp/mode_support.h"

namespace ampbench::amp {
namespace {

bool at_least(const ComputeCapability& c, int major, int minor) {
  return c.major > major || (c.major == major && c.minor >= minor);
}

std::string text(const ComputeCapability& c) {
  return std::to_string(c.major) + "." + std::to_string(c.minor);
}

// A CPU without 16-bit arithmetic still runs autocast, through fp32: slower, not faster. Measured on a
// Xeon with AVX-512 but neither (results/): fp16 at 0.02-0.04x fp32's speed, about nine tenths of its time in
// LibTorch's generic fp16 GEMM; bf16 at 0.3-0.8x.
ModeCaveat no_16bit_arithmetic(const std::string& reason, measure::CpuArchitecture architecture) {
  const std::string where = architecture == measure::CpuArchitecture::x86
                                ? "a CPU with AMX (Intel Xeon 4th generation or newer)"
                                : "an Arm CPU with asimdhp and bf16 (Neoverse V1, N2 or newer)";
  return {ModeCaveat::Kind::no_16bit_arithmetic, reason,
          "compare on " + where + " or on a GPU to see what 16-bit arithmetic buys"};
}

// The instructions each format would need, as the CPU's architecture names them.
std::string missing_instructions(PrecisionMode mode, measure::CpuArchitecture architecture) {
  if (architecture == measure::CpuArchitecture::arm64) {
    return mode == PrecisionMode::fp16 ? "no Advanced SIMD half-precision arithmetic, asimdhp"
                                       : "no BF16 extension, bf16";
  }
  return mode == PrecisionMode::fp16 ? "neither AVX512-FP16 nor AMX-FP16"
                                     : "neither AVX512-BF16 nor AMX-BF16";
}

// bf16 mixed and the pure bf16 modes: they need the same arithmetic.
bool is_bf16(PrecisionMode mode) { return mode == PrecisionMode::bf16 || is_pure_bf16(mode); }

bool is_float8(PrecisionMode mode) {
  return mode == PrecisionMode::fp8 || mode == PrecisionMode::fp8_rowwise;
}

// No CPU multiplies float8: at::_scaled_mm's CPU kernel converts its operands and multiplies in fp32. The
// mode's figures show float8's numerics (the same scales and casts as on a GPU), not its speed.
ModeCaveat float8_on_the_cpu() {
  return {ModeCaveat::Kind::no_float8_arithmetic,
          "no CPU multiplies float8: LibTorch's CPU at::_scaled_mm converts the operands and multiplies in "
          "fp32, so expect fp8 to be slower than bf16; its losses show float8's numerics, not its speed",
          "compare on a GPU of compute capability 8.9 or newer (Ada, Hopper) to see what float8 buys"};
}

}  // namespace

ModeSupport check_mode_support(PrecisionMode mode, c10::DeviceType device_type,
                               std::optional<ComputeCapability> capability,
                               std::optional<measure::Cpu16BitArithmetic> cpu) {
  if (device_type == c10::DeviceType::CPU) {
    if (mode == PrecisionMode::tf32) {
      return {"TF32 is a format of NVIDIA tensor cores (compute capability 8.0+); the CPU has none", {}};
    }
    if (is_float8(mode)) return {{}, float8_on_the_cpu()};
    if (cpu && mode == PrecisionMode::fp16 && !cpu->fp16) {
      return {{},
              no_16bit_arithmetic(
                  "this CPU has no fp16 arithmetic (" + missing_instructions(mode, cpu->architecture) +
                      "): LibTorch runs fp16 matmuls and convolutions in generic kernels that "
                      "compute in fp32, so expect fp16 to be slower than fp32",
                  cpu->architecture)};
    }
    if (cpu && is_bf16(mode) && !cpu->bf16) {
      return {{},
              no_16bit_arithmetic("this CPU has no bf16 arithmetic (" +
                                      missing_instructions(mode, cpu->architecture) +
                                      "): bf16 matmuls and convolutions go through conversions to fp32, so "
                                      "expect no speed-up over fp32",
                                  cpu->architecture)};
    }
    return {};
  }
  if (!capability) return {};  // an accelerator that reports none: let LibTorch decide
  const auto& c = *capability;
  if ((is_bf16(mode) || mode == PrecisionMode::tf32) && !at_least(c, 8, 0)) {
    return {std::string(to_string(mode)) + " needs compute capability 8.0 or newer; this GPU has " + text(c),
            {}};
  }
  if (is_float8(mode) && !at_least(c, 8, 9)) {
    return {std::string(to_string(mode)) +
                " needs float8 tensor cores, compute capability 8.9 (Ada, Hopper) or newer; this GPU has " +
                text(c),
            {}};
  }
  if (mode == PrecisionMode::fp16 && !at_least(c, 7, 0)) {
    return {
        {},
        ModeCaveat{ModeCaveat::Kind::no_tensor_cores,
                   "this GPU (compute capability " + text(c) +
                       ") has no tensor cores: fp16 runs on ordinary CUDA cores, so expect little speed-up",
                   "compare on a GPU of compute capability 7.0 or newer to see what fp16 buys there"}};
  }
  return {};
}

}  // namespace ampbench::amp
