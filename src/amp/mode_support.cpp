#include "amp/mode_support.h"

namespace ampbench::amp {
namespace {

// fp16 arithmetic runs on tensor cores from Volta on; below, on ordinary CUDA cores.
constexpr ComputeCapability kVolta{7, 0};

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
std::string missing_instructions(MatrixArithmetic arithmetic, measure::CpuArchitecture architecture) {
  if (architecture == measure::CpuArchitecture::arm64) {
    return arithmetic == MatrixArithmetic::fp16 ? "no Advanced SIMD half-precision arithmetic, asimdhp"
                                                : "no BF16 extension, bf16";
  }
  return arithmetic == MatrixArithmetic::fp16 ? "neither AVX512-FP16 nor AMX-FP16"
                                              : "neither AVX512-BF16 nor AMX-BF16";
}

// No CPU multiplies float8: at::_scaled_mm's CPU kernel converts its operands and multiplies in fp32. The
// mode's figures show float8's numerics (the same scales and casts as on a GPU), not its speed.
ModeCaveat float8_on_the_cpu() {
  return {ModeCaveat::Kind::no_float8_arithmetic,
          "no CPU multiplies float8: LibTorch's CPU at::_scaled_mm converts the operands and multiplies in "
          "fp32, so expect fp8 to be slower than bf16; its losses show float8's numerics, not its speed",
          "compare on a GPU of compute capability 8.9 or newer (Ada, Hopper) to see what float8 buys"};
}

ModeSupport on_the_cpu(const PrecisionRecipe& row, std::optional<measure::Cpu16BitArithmetic> cpu) {
  switch (row.arithmetic) {
    case MatrixArithmetic::tf32:
      return {"TF32 is a format of NVIDIA tensor cores (compute capability 8.0+); the CPU has none", {}};
    case MatrixArithmetic::fp8:
    case MatrixArithmetic::fp4:
      return {{}, float8_on_the_cpu()};
    case MatrixArithmetic::fp16:
      if (!cpu || cpu->fp16) return {};
      return {
          {},
          no_16bit_arithmetic("this CPU has no fp16 arithmetic (" +
                                  missing_instructions(row.arithmetic, cpu->architecture) +
                                  "): LibTorch runs fp16 matmuls and convolutions in generic kernels that "
                                  "compute in fp32, so expect fp16 to be slower than fp32",
                              cpu->architecture)};
    case MatrixArithmetic::bf16:
      if (!cpu || cpu->bf16) return {};
      return {{},
              no_16bit_arithmetic("this CPU has no bf16 arithmetic (" +
                                      missing_instructions(row.arithmetic, cpu->architecture) +
                                      "): bf16 matmuls and convolutions go through conversions to fp32, so "
                                      "expect no speed-up over fp32",
                                  cpu->architecture)};
    case MatrixArithmetic::fp32:
      return {};
  }
  return {};
}

std::string needs_text(const PrecisionRecipe& row, const ComputeCapability& have) {
  const auto& need = *row.needs_capability;
  const std::string what =
      row.arithmetic == MatrixArithmetic::fp8
          ? " needs float8 tensor cores, compute capability " + to_string(need) + " (Ada, Hopper) or newer"
          : " needs compute capability " + to_string(need) + " or newer";
  return std::string(row.name) + what + "; this GPU has " + to_string(have);
}

ModeSupport on_a_gpu(const PrecisionRecipe& row, const ComputeCapability& c) {
  if (row.needs_capability && !at_least(c, *row.needs_capability)) return {needs_text(row, c), {}};
  if (row.arithmetic == MatrixArithmetic::fp16 && !at_least(c, kVolta)) {
    return {
        {},
        ModeCaveat{ModeCaveat::Kind::no_tensor_cores,
                   "this GPU (compute capability " + to_string(c) +
                       ") has no tensor cores: fp16 runs on ordinary CUDA cores, so expect little speed-up",
                   "compare on a GPU of compute capability 7.0 or newer to see what fp16 buys there"}};
  }
  return {};
}

// An emulated mode runs wherever bf16 does; what the reader must know is that its time is not the format's,
// and why the device's kernels did not take it.
ModeCaveat emulated(const PrecisionRecipe& row, const std::string& why) {
  return {
      ModeCaveat::Kind::emulated,
      std::string(row.name) + " is emulated here, since " + why +
          ": each product's operands are quantized to the format and back, then multiplied with fp32 "
          "accumulation, so "
          "its time is the emulation's cost, not the format's speed; its losses, fidelity, model-state "
          "memory and numerics are the format's",
      "read its fidelity and numerics, not its speed: a GPU with the format's kernels (Blackwell for MXFP8 "
      "and NVFP4, Hopper for 1 x 128 fp8) runs them and measures that"};
}

}  // namespace

ModeSupport check_mode_support(PrecisionMode mode, c10::DeviceType device_type,
                               std::optional<ComputeCapability> capability,
                               std::optional<measure::Cpu16BitArithmetic> cpu, const KernelRefusal& kernels) {
  const auto& row = recipe_of(mode);
  auto support = device_type == c10::DeviceType::CPU ? on_the_cpu(row, cpu)
                 : capability                        ? on_a_gpu(row, *capability)
                                                     : ModeSupport{};  // an accelerator that reports none
  if (!row.emulated || support.skip_reason) return support;
  const auto refusal = kernels ? kernels(*row.linear_recipe) : "no kernels were looked for";
  if (refusal) support.caveat = emulated(row, *refusal);
  return support;
}

}  // namespace ampbench::amp
