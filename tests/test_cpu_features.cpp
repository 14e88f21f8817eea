// Reading the CPU's 16-bit arithmetic from /proc/cpuinfo's flags.
#include <sstream>

#include <gtest/gtest.h>

#include "measure/cpu_features.h"

using ampbench::measure::read_cpu_16bit_arithmetic;

namespace {

std::optional<ampbench::measure::Cpu16BitArithmetic> from(const std::string& text) {
  std::istringstream cpuinfo(text);
  return read_cpu_16bit_arithmetic(cpuinfo);
}

}  // namespace

TEST(CpuFeatures, AnAvx512XeonWithoutBf16OrFp16HasNeither) {
  auto cpu = from(
      "processor\t: 0\nmodel name\t: Intel(R) Xeon(R) Processor @ 2.80GHz\n"
      "flags\t\t: fpu sse2 avx2 avx512f avx512bw avx512vl avx512_vnni avx512_bitalg\n\n"
      "processor\t: 1\nflags\t\t: fpu sse2 avx2 avx512f avx512_bf16 avx512_fp16\n");
  ASSERT_TRUE(cpu);
  EXPECT_FALSE(cpu->fp16);  // the first CPU's flags decide: they are the same on every core
  EXPECT_FALSE(cpu->bf16);
}

TEST(CpuFeatures, EachFormatIsFoundThroughItsVectorOrItsMatrixInstructions) {
  auto zen4 = from("flags\t\t: avx512f avx512_bf16 avx512_vnni\n");
  ASSERT_TRUE(zen4);
  EXPECT_FALSE(zen4->fp16);
  EXPECT_TRUE(zen4->bf16);
  auto sapphire_rapids = from("flags\t\t: avx512f avx512_bf16 avx512_fp16 amx_bf16 amx_tile amx_int8\n");
  ASSERT_TRUE(sapphire_rapids);
  EXPECT_TRUE(sapphire_rapids->fp16);
  EXPECT_TRUE(sapphire_rapids->bf16);
  auto amx_only = from("flags\t\t: amx_bf16 amx_fp16 amx_tile\n");
  ASSERT_TRUE(amx_only);
  EXPECT_TRUE(amx_only->fp16);
  EXPECT_TRUE(amx_only->bf16);
}

TEST(CpuFeatures, OnArmTheFeaturesLineIsRead) {
  const auto graviton3 = from(
      "processor\t: 0\nBogoMIPS\t: 2100.00\n"
      "Features\t: fp asimd evtstrm aes fphp asimdhp cpuid asimddp sve svebf16 i8mm bf16 dgh rng\n"
      "CPU implementer\t: 0x41\n");
  ASSERT_TRUE(graviton3);
  EXPECT_EQ(graviton3->architecture, ampbench::measure::CpuArchitecture::arm64);
  EXPECT_TRUE(graviton3->fp16);
  EXPECT_TRUE(graviton3->bf16);
  const auto graviton2 =
      from("Features\t: fp asimd evtstrm aes pmull crc32 atomics fphp asimdhp cpuid asimddp\n");
  ASSERT_TRUE(graviton2);
  EXPECT_TRUE(graviton2->fp16);
  EXPECT_FALSE(graviton2->bf16);
  // A Cortex-A72 has neither; the SVE form of BF16 alone is not the BF16 extension.
  const auto cortex_a72 = from("Features\t: fp asimd evtstrm crc32 cpuid svebf16\n");
  ASSERT_TRUE(cortex_a72);
  EXPECT_FALSE(cortex_a72->fp16);
  EXPECT_FALSE(cortex_a72->bf16);
}

TEST(CpuFeatures, WithoutAFlagsOrFeaturesLineNothingIsSaid) {
  EXPECT_FALSE(from("processor\t: 0\nmodel name\t: a CPU\nCPU implementer\t: 0x41\n"));
  EXPECT_FALSE(from("vmx flags\t: vnmi preemption_timer\n"));
  EXPECT_FALSE(from(""));
  // Substrings of a flag are not the flag.
  auto cpu = from("flags\t\t: avx512_fp16x xamx_bf16\n");
  ASSERT_TRUE(cpu);
  EXPECT_FALSE(cpu->fp16);
  EXPECT_FALSE(cpu->bf16);
}
