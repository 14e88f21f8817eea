#include "measure/peak_flops.h"

#include <vector>

namespace ampbench::measure {
namespace {

struct Peak {
  const char* name_contains;  // matched against the CUDA device name, first match wins
  std::optional<double> fp16, bf16, tf32, fp32;
};

// NVIDIA data sheets, dense. SXM parts unless the name says otherwise; more specific names come first.
const std::vector<Peak>& peaks() {
  static const std::vector<Peak> table{
      {"H100 PCIe", 756.0, 756.0, 378.0, 51.2},
      {"H100 NVL", 835.0, 835.0, 417.5, 60.0},
      {"H100", 989.0, 989.0, 494.7, 66.9},
      {"H200 NVL", 835.0, 835.0, 417.5, 60.0},
      {"H200", 989.0, 989.0, 494.7, 66.9},
      {"A100", 312.0, 312.0, 156.0, 19.5},
      {"A10", 125.0, 125.0, 62.5, 31.2},
      {"L40S", 362.0, 362.0, 183.0, 91.6},
      {"L40", 181.0, 181.0, 90.5, 90.5},
      {"L4", 121.0, 121.0, 60.0, 30.3},
      {"V100", 125.0, std::nullopt, std::nullopt, 15.7},
      {"T4", 65.0, std::nullopt, std::nullopt, 8.1},
  };
  return table;
}

}  // namespace

std::optional<double> dense_peak_tflops(const std::string& gpu_name, amp::PrecisionMode mode) {
  for (const auto& peak : peaks()) {
    if (gpu_name.find(peak.name_contains) == std::string::npos) continue;
    switch (mode) {
      case amp::PrecisionMode::fp16:
        return peak.fp16;
      case amp::PrecisionMode::bf16:
        return peak.bf16;
      case amp::PrecisionMode::tf32:
        return peak.tf32;
      case amp::PrecisionMode::fp32:
        return peak.fp32;
    }
  }
  return std::nullopt;
}

}  // namespace ampbench::measure
