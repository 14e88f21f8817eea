#include <ATen/Context.h>
#include <c10/util/Exception.h>
#include <gtest/gtest.h>

#include "amp/math_settings.h"
#include "amp/mode_support.h"
#include "mode_families.h"

using ampbench::amp::check_mode_support;
using ampbench::amp::ComputeCapability;
using ampbench::amp::PrecisionMode;
using c10::DeviceType;

TEST(ModeSupport, TheCpuRunsEveryModeButTf32) {
  for (auto mode : {PrecisionMode::fp32, PrecisionMode::fp16, PrecisionMode::bf16}) {
    auto support = check_mode_support(mode, DeviceType::CPU, std::nullopt);
    EXPECT_FALSE(support.skip_reason) << ampbench::amp::to_string(mode);
    EXPECT_FALSE(support.caveat);
  }
  auto tf32 = check_mode_support(PrecisionMode::tf32, DeviceType::CPU, std::nullopt);
  ASSERT_TRUE(tf32.skip_reason);
  EXPECT_NE(tf32.skip_reason->find("TF32"), std::string::npos);
}

TEST(ModeSupport, ACpuWithout16BitArithmeticRunsFp16AndBf16WithACaveat) {
  using ampbench::measure::Cpu16BitArithmetic;
  const Cpu16BitArithmetic neither{false, false}, bf16_only{false, true}, both{true, true};
  for (auto mode : {PrecisionMode::fp16, PrecisionMode::bf16}) {
    auto support = check_mode_support(mode, DeviceType::CPU, std::nullopt, neither);
    EXPECT_FALSE(support.skip_reason);
    ASSERT_TRUE(support.caveat) << ampbench::amp::to_string(mode);
    EXPECT_EQ(support.caveat->kind, ampbench::amp::ModeCaveat::Kind::no_16bit_arithmetic);
    EXPECT_NE(
        support.caveat->reason.find("no " + std::string(ampbench::amp::to_string(mode)) + " arithmetic"),
        std::string::npos)
        << support.caveat->reason;
    EXPECT_FALSE(check_mode_support(mode, DeviceType::CPU, std::nullopt, both).caveat);
  }
  // Each 16-bit format is judged by its own instructions.
  EXPECT_TRUE(check_mode_support(PrecisionMode::fp16, DeviceType::CPU, std::nullopt, bf16_only).caveat);
  EXPECT_FALSE(check_mode_support(PrecisionMode::bf16, DeviceType::CPU, std::nullopt, bf16_only).caveat);
  EXPECT_FALSE(check_mode_support(PrecisionMode::fp32, DeviceType::CPU, std::nullopt, neither).caveat);
  // The CPU's arithmetic says nothing about a GPU's.
  EXPECT_FALSE(
      check_mode_support(PrecisionMode::bf16, DeviceType::CUDA, ComputeCapability{9, 0}, neither).caveat);
}

TEST(ModeSupport, TheCaveatNamesTheInstructionsOfTheCpusArchitecture) {
  using ampbench::measure::Cpu16BitArithmetic;
  using ampbench::measure::CpuArchitecture;
  const Cpu16BitArithmetic x86{false, false, CpuArchitecture::x86}, arm{false, false, CpuArchitecture::arm64};
  const auto reason = [](PrecisionMode mode, const Cpu16BitArithmetic& cpu) {
    return check_mode_support(mode, DeviceType::CPU, std::nullopt, cpu).caveat.value().reason;
  };
  EXPECT_NE(reason(PrecisionMode::fp16, x86).find("AVX512-FP16"), std::string::npos);
  EXPECT_NE(reason(PrecisionMode::bf16, x86).find("AMX-BF16"), std::string::npos);
  EXPECT_NE(reason(PrecisionMode::fp16, arm).find("asimdhp"), std::string::npos);
  EXPECT_NE(reason(PrecisionMode::bf16, arm).find("BF16 extension"), std::string::npos);
  EXPECT_EQ(reason(PrecisionMode::fp16, arm).find("AVX"), std::string::npos);
  const auto arm_advice =
      check_mode_support(PrecisionMode::bf16, DeviceType::CPU, std::nullopt, arm).caveat->advice;
  EXPECT_EQ(arm_advice.find("AMX"), std::string::npos) << arm_advice;
}

TEST(ModeSupport, Bf16AndTf32NeedAmpere) {
  const ComputeCapability volta{7, 0}, turing{7, 5}, ampere{8, 0}, hopper{9, 0};
  for (auto mode : {PrecisionMode::bf16, PrecisionMode::tf32}) {
    for (auto old : {volta, turing}) {
      auto support = check_mode_support(mode, DeviceType::CUDA, old);
      ASSERT_TRUE(support.skip_reason);
      EXPECT_NE(support.skip_reason->find("8.0"), std::string::npos);
      EXPECT_NE(support.skip_reason->find(std::to_string(old.major) + "." + std::to_string(old.minor)),
                std::string::npos);
    }
    EXPECT_FALSE(check_mode_support(mode, DeviceType::CUDA, ampere).skip_reason);
    EXPECT_FALSE(check_mode_support(mode, DeviceType::CUDA, hopper).skip_reason);
  }
}

TEST(ModeSupport, TheFp8ModesNeedAdaOrHopperAndRunOnTheCpuWithACaveat) {
  const ComputeCapability ampere{8, 6}, ada{8, 9}, hopper{9, 0};
  ASSERT_FALSE(ampbench::testing::float8_modes().empty());
  for (auto mode : ampbench::testing::float8_modes()) {
    SCOPED_TRACE(std::string(ampbench::amp::to_string(mode)));
    auto old = check_mode_support(mode, DeviceType::CUDA, ampere);
    ASSERT_TRUE(old.skip_reason);
    EXPECT_NE(old.skip_reason->find("8.9"), std::string::npos) << *old.skip_reason;
    EXPECT_NE(old.skip_reason->find("8.6"), std::string::npos) << *old.skip_reason;
    EXPECT_FALSE(check_mode_support(mode, DeviceType::CUDA, ada).skip_reason);
    EXPECT_FALSE(check_mode_support(mode, DeviceType::CUDA, hopper).caveat);
    auto cpu = check_mode_support(mode, DeviceType::CPU, std::nullopt);
    EXPECT_FALSE(cpu.skip_reason);
    ASSERT_TRUE(cpu.caveat);
    EXPECT_EQ(cpu.caveat->kind, ampbench::amp::ModeCaveat::Kind::no_float8_arithmetic);
    EXPECT_NE(cpu.caveat->reason.find("slower than bf16"), std::string::npos);
  }
}

TEST(ModeSupport, Fp16BelowVoltaRunsWithACaveat) {
  auto pascal = check_mode_support(PrecisionMode::fp16, DeviceType::CUDA, ComputeCapability{6, 1});
  EXPECT_FALSE(pascal.skip_reason);
  ASSERT_TRUE(pascal.caveat);
  EXPECT_EQ(pascal.caveat->kind, ampbench::amp::ModeCaveat::Kind::no_tensor_cores);
  EXPECT_NE(pascal.caveat->reason.find("tensor cores"), std::string::npos);
  EXPECT_FALSE(check_mode_support(PrecisionMode::fp16, DeviceType::CUDA, ComputeCapability{7, 0}).caveat);
  EXPECT_FALSE(
      check_mode_support(PrecisionMode::fp32, DeviceType::CUDA, ComputeCapability{6, 1}).skip_reason);
}

TEST(MathSettings, Fp32IsStrictAndTf32AndBf16AllowTf32OnCudaOnly) {
  using ampbench::amp::settings_for;
  EXPECT_FALSE(settings_for(PrecisionMode::fp32, DeviceType::CUDA, false).tf32_matmul);
  EXPECT_FALSE(settings_for(PrecisionMode::fp16, DeviceType::CUDA, false).tf32_conv);
  EXPECT_TRUE(settings_for(PrecisionMode::tf32, DeviceType::CUDA, false).tf32_matmul);
  EXPECT_TRUE(settings_for(PrecisionMode::tf32, DeviceType::CUDA, false).tf32_conv);
  EXPECT_TRUE(settings_for(PrecisionMode::bf16, DeviceType::CUDA, false).tf32_matmul);
  EXPECT_FALSE(settings_for(PrecisionMode::bf16, DeviceType::CPU, false).tf32_matmul);
  EXPECT_TRUE(settings_for(PrecisionMode::fp32, DeviceType::CPU, true).cudnn_benchmark);
}

TEST(MathSettings, AScopeAppliesItsSettingsAndRestoresThePreviousOnes) {
  using ampbench::amp::current_math_settings;
  using ampbench::amp::MathSettings;
  using ampbench::amp::MathSettingsScope;
  const auto before = current_math_settings();
  const MathSettings wanted{!before.tf32_matmul, !before.tf32_conv, !before.cudnn_benchmark};
  {
    MathSettingsScope scope(wanted);
    EXPECT_EQ(current_math_settings(), wanted);
    {
      MathSettingsScope strict(MathSettings{false, false, false});
      EXPECT_EQ(current_math_settings(), (MathSettings{false, false, false}));
    }
    EXPECT_EQ(current_math_settings(), wanted);
  }
  EXPECT_EQ(current_math_settings(), before);
}

// Counts the warnings LibTorch raises while it is installed.
class CountedWarnings : public c10::WarningHandler {
 public:
  void process(const c10::Warning&) override { ++count; }
  int count = 0;
};

// LibTorch's legacy TF32 setters warn once per process (since 2.9), a line on every run's stderr; and the
// legacy getters, which code may still ask, refuse a mix of the legacy and new settings. (cuDNN's
// convolutions ask for their own op's setting.)
TEST(MathSettings, Tf32IsSetWithoutALibTorchWarningAndTheLegacyGettersAgree) {
  using ampbench::amp::MathSettings;
  using ampbench::amp::MathSettingsScope;
  CountedWarnings warnings;
  {
    c10::WarningUtils::WarningHandlerGuard guard(&warnings);
    MathSettingsScope tf32(MathSettings{true, true, false});
    MathSettingsScope strict(MathSettings{false, false, false});
  }
  EXPECT_EQ(warnings.count, 0);
  MathSettingsScope tf32(MathSettings{true, true, false});
  EXPECT_TRUE(at::globalContext().allowTF32CuBLAS());
  EXPECT_TRUE(at::globalContext().allowTF32CuDNN(at::Float32Op::CONV));
  MathSettingsScope strict(MathSettings{false, false, false});
  EXPECT_FALSE(at::globalContext().allowTF32CuBLAS());
  EXPECT_FALSE(at::globalContext().allowTF32CuDNN(at::Float32Op::CONV));
}
