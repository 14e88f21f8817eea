#include "amp/peak_flops.h"

#include <algorithm>
#include <vector>

namespace ampbench::amp {
namespace {

struct Peak {
  const char* name;  // whole words of the CUDA device name, first match wins
  std::optional<double> fp16, bf16, tf32, fp32, fp8;
};

// NVIDIA data sheets, dense (half the sparse figure where only that is given). SXM parts unless the name
// says otherwise; more specific names come first. fp8 exists from compute capability 8.9 (Ada, Hopper).
const std::vector<Peak>& peaks() {
  static const std::vector<Peak> table{
      {"H100 PCIe", 756.0, 756.0, 378.0, 51.2, 1513.0},
      {"H100 NVL", 835.0, 835.0, 417.5, 60.0, 1670.5},
      {"H100", 989.0, 989.0, 494.7, 66.9, 1978.9},
      {"H200 NVL", 835.0, 835.0, 417.5, 60.0, 1670.5},
      {"GH200", 989.0, 989.0, 494.7, 66.9, 1978.9},
      {"H200", 989.0, 989.0, 494.7, 66.9, 1978.9},
      {"A100", 312.0, 312.0, 156.0, 19.5, std::nullopt},
      {"A10", 125.0, 125.0, 62.5, 31.2, std::nullopt},
      {"L40S", 362.0, 362.0, 183.0, 91.6, 733.0},
      {"L40", 181.0, 181.0, 90.5, 90.5, 362.0},
      {"L4", 121.0, 121.0, 60.0, 30.3, 242.5},
      {"V100", 125.0, std::nullopt, std::nullopt, 15.7, std::nullopt},
      {"T4", 65.0, std::nullopt, std::nullopt, 8.1, std::nullopt},
  };
  return table;
}

// "NVIDIA A100-SXM4-80GB" -> {"NVIDIA", "A100", "SXM4", "80GB"}: names are matched word by word, so that
// an A100 is not an RTX A1000 and a T4 not a T400.
std::vector<std::string> words(const std::string& name) {
  std::vector<std::string> out;
  std::string word;
  for (char c : name + ' ') {
    if (c == ' ' || c == '-' || c == '_') {
      if (!word.empty()) out.push_back(word);
      word.clear();
    } else {
      word += c;
    }
  }
  return out;
}

bool contains_words(const std::vector<std::string>& device, const std::vector<std::string>& wanted) {
  return std::search(device.begin(), device.end(), wanted.begin(), wanted.end()) != device.end();
}

}  // namespace

std::optional<double> dense_peak_tflops(const std::string& gpu_name, PrecisionMode mode) {
  const auto device_words = words(gpu_name);
  for (const auto& peak : peaks()) {
    if (!contains_words(device_words, words(peak.name))) continue;
    switch (recipe_of(mode).arithmetic) {
      case MatrixArithmetic::fp16:
        return peak.fp16;
      case MatrixArithmetic::bf16:
        return peak.bf16;
      case MatrixArithmetic::tf32:
        return peak.tf32;
      case MatrixArithmetic::fp32:
        return peak.fp32;
      case MatrixArithmetic::fp8:
        return peak.fp8;
      case MatrixArithmetic::fp4:
        return std::nullopt;  // no GPU of the table has float4 tensor cores
    }
  }
  return std::nullopt;
}

}  // namespace ampbench::amp
