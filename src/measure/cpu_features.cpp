#include "measure/cpu_features.h"

#include <fstream>
#include <iterator>
#include <set>
#include <sstream>
#include <string>

namespace ampbench::measure {
namespace {

std::set<std::string> words_after_colon(const std::string& line, size_t colon) {
  std::istringstream words(line.substr(colon + 1));
  return {std::istream_iterator<std::string>(words), {}};
}

}  // namespace

std::optional<Cpu16BitArithmetic> read_cpu_16bit_arithmetic(std::istream& cpuinfo) {
  std::string line;
  while (std::getline(cpuinfo, line)) {
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    const auto key = line.substr(0, line.find_last_not_of(" \t", colon - 1) + 1);
    if (key == "flags") {
      const auto flags = words_after_colon(line, colon);
      return Cpu16BitArithmetic{flags.contains("avx512_fp16") || flags.contains("amx_fp16"),
                                flags.contains("avx512_bf16") || flags.contains("amx_bf16"),
                                CpuArchitecture::x86};
    }
    if (key == "Features") {
      const auto features = words_after_colon(line, colon);
      return Cpu16BitArithmetic{features.contains("asimdhp"), features.contains("bf16"),
                                CpuArchitecture::arm64};
    }
  }
  return std::nullopt;
}

std::optional<Cpu16BitArithmetic> cpu_16bit_arithmetic() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  return read_cpu_16bit_arithmetic(cpuinfo);
}

}  // namespace ampbench::measure
