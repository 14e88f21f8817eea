#pragma once

#include <istream>
#include <optional>

namespace ampbench::measure {

enum class CpuArchitecture { x86, arm64 };

// Whether the CPU computes in 16-bit formats itself, or only converts them to fp32 and back. On x86:
// AVX512-FP16 or AMX-FP16 for fp16, AVX512-BF16 or AMX-BF16 for bf16; on 64-bit Arm: the Advanced SIMD
// half-precision instructions (asimdhp) for fp16, the BF16 extension (bf16) for bf16, which are what
// LibTorch's CPU kernels check for there. Without them LibTorch still runs autocast's 16-bit matmuls and
// convolutions, through conversions or generic kernels, and they are usually slower than fp32: a reader
// of the report needs to know why.
struct Cpu16BitArithmetic {
  bool fp16 = false;
  bool bf16 = false;
  CpuArchitecture architecture = CpuArchitecture::x86;
};

// From /proc/cpuinfo's text: its first "flags" line (x86 Linux) or "Features" line (64-bit Arm Linux).
// nullopt where there is neither (another architecture, or no such file), since then nothing can be
// said.
std::optional<Cpu16BitArithmetic> read_cpu_16bit_arithmetic(std::istream& cpuinfo);

// This machine's, read from /proc/cpuinfo.
std::optional<Cpu16BitArithmetic> cpu_16bit_arithmetic();

}  // namespace ampbench::measure
