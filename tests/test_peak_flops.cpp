#include "amp/peak_flops.h"

#include <gtest/gtest.h>

namespace {

using ampbench::amp::dense_peak_tflops;
using ampbench::amp::PrecisionMode;

// Names as CUDA reports them: a variant gets its own figures, not those of a name within its own.
TEST(PeakFlops, EachVariantGetsItsOwnDataSheetFigures) {
  EXPECT_EQ(dense_peak_tflops("NVIDIA H100 80GB HBM3", PrecisionMode::bf16), 989.0);
  EXPECT_EQ(dense_peak_tflops("NVIDIA H100 PCIe", PrecisionMode::bf16), 756.0);
  EXPECT_EQ(dense_peak_tflops("NVIDIA H100 NVL", PrecisionMode::fp32), 60.0);
  EXPECT_EQ(dense_peak_tflops("NVIDIA H200", PrecisionMode::fp16), 989.0);
  EXPECT_EQ(dense_peak_tflops("NVIDIA H200 NVL", PrecisionMode::fp16), 835.0);
  EXPECT_EQ(dense_peak_tflops("NVIDIA GH200 480GB", PrecisionMode::bf16), 989.0);
  EXPECT_EQ(dense_peak_tflops("NVIDIA A100-SXM4-80GB", PrecisionMode::tf32), 156.0);
  EXPECT_EQ(dense_peak_tflops("NVIDIA A10", PrecisionMode::tf32), 62.5);
  EXPECT_EQ(dense_peak_tflops("NVIDIA L40S", PrecisionMode::fp32), 91.6);
  EXPECT_EQ(dense_peak_tflops("NVIDIA L4", PrecisionMode::fp16), 121.0);
  EXPECT_EQ(dense_peak_tflops("NVIDIA H100 80GB HBM3", PrecisionMode::fp8), 1978.9);
  EXPECT_EQ(dense_peak_tflops("NVIDIA H200", PrecisionMode::fp8_rowwise), 1978.9);
  EXPECT_EQ(dense_peak_tflops("NVIDIA H100 PCIe", PrecisionMode::fp8), 1513.0);
  EXPECT_EQ(dense_peak_tflops("NVIDIA L40S", PrecisionMode::fp8), 733.0);
}

TEST(PeakFlops, AnUnknownDeviceOrFormatHasNoFigure) {
  EXPECT_FALSE(dense_peak_tflops("Some Future GPU", PrecisionMode::bf16).has_value());
  // Names that contain a known one, but are other devices: no figure rather than a wrong one.
  EXPECT_FALSE(dense_peak_tflops("NVIDIA RTX A1000 Laptop GPU", PrecisionMode::fp16).has_value());
  EXPECT_FALSE(dense_peak_tflops("NVIDIA T400", PrecisionMode::fp16).has_value());
  EXPECT_FALSE(dense_peak_tflops("NVIDIA A10G", PrecisionMode::fp16).has_value());
  EXPECT_FALSE(dense_peak_tflops("Tesla V100-SXM2-16GB", PrecisionMode::bf16).has_value());  // no bf16 units
  EXPECT_EQ(dense_peak_tflops("Tesla V100-SXM2-16GB", PrecisionMode::fp16), 125.0);
  EXPECT_FALSE(dense_peak_tflops("NVIDIA A100-SXM4-80GB", PrecisionMode::fp8).has_value());  // no fp8 units
}

}  // namespace
