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

TEST(CpuFeatures, WithoutAFlagsLineNothingIsSaid) {
  EXPECT_FALSE(from("processor\t: 0\nFeatures\t: fp asimd asimdhp bf16\nCPU implementer\t: 0x41\n"));
  EXPECT_FALSE(from(""));
  // Substrings of a flag are not the flag.
  auto cpu = from("flags\t\t: avx512_fp16x xamx_bf16\n");
  ASSERT_TRUE(cpu);
  EXPECT_FALSE(cpu->fp16);
  EXPECT_FALSE(cpu->bf16);
}
