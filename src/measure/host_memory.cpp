#include "measure/host_memory.h"

#include <array>
#include <cstdio>
#include <fstream>
#include <sstream>

namespace ampbench::measure {

std::optional<int64_t> read_mem_available(std::istream& meminfo) {
  std::string line;
  while (std::getline(meminfo, line)) {
    std::istringstream fields(line);
    std::string key, unit;
    int64_t value = 0;
    if (!(fields >> key >> value)) continue;
    if (key != "MemAvailable:") continue;
    fields >> unit;
    return unit == "kB" ? value * 1024 : value;
  }
  return std::nullopt;
}

std::optional<int64_t> available_host_bytes() {
  std::ifstream meminfo("/proc/meminfo");
  if (!meminfo) return std::nullopt;
  return read_mem_available(meminfo);
}

std::string human_bytes(double bytes) {
  static constexpr std::array<const char*, 6> kUnits{"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  size_t unit = 0;
  while (bytes >= 1024.0 && unit + 1 < kUnits.size()) bytes /= 1024.0, ++unit;
  char text[32];
  std::snprintf(text, sizeof text, unit == 0 ? "%.0f %s" : "%.1f %s", bytes, kUnits[unit]);
  return text;
}

}  // namespace ampbench::measure
