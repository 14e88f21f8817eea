#include "measure/cpu_features.h"

#include <fstream>
#include <iterator>
#include <set>
#include <sstream>
#include <string>

namespace ampbench::measure {

std::optional<Cpu16BitArithmetic> read_cpu_16bit_arithmetic(std::istream& cpuinfo) {
  std::string line;
  while (std::getline(cpuinfo, line)) {
    const auto colon = line.find(':');
    if (line.rfind("flags", 0) != 0 || colon == std::string::npos) continue;
    std::istringstream words(line.substr(colon + 1));
    const std::set<std::string> flags{std::istream_iterator<std::string>(words), {}};
    return Cpu16BitArithmetic{flags.contains("avx512_fp16") || flags.contains("amx_fp16"),
                              flags.contains("avx512_bf16") || flags.contains("amx_bf16")};
  }
  return std::nullopt;
}

std::optional<Cpu16BitArithmetic> cpu_16bit_arithmetic() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  return read_cpu_16bit_arithmetic(cpuinfo);
}

}  // namespace ampbench::measure
