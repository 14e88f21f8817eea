#include <sstream>

#include <gtest/gtest.h>

#include "measure/host_memory.h"

using ampbench::measure::human_bytes;
using ampbench::measure::read_mem_available;

TEST(HostMemory, MemAvailableIsReadInBytes) {
  std::istringstream meminfo(
      "MemTotal:       24570872 kB\nMemFree:         1148304 kB\nMemAvailable:   22370588 kB\nBuffers: 1 "
      "kB\n");
  EXPECT_EQ(read_mem_available(meminfo), int64_t{22370588} * 1024);
  std::istringstream without("MemTotal:       24570872 kB\nMemFree:         1148304 kB\n");
  EXPECT_EQ(read_mem_available(without), std::nullopt);
}

TEST(HostMemory, ThisMachineSaysHowMuchIsAvailable) {
  const auto available = ampbench::measure::available_host_bytes();
  ASSERT_TRUE(available.has_value()) << "no MemAvailable in /proc/meminfo";
  EXPECT_GT(*available, 0);
}

TEST(HostMemory, BytesReadAsAPersonReadsThem) {
  EXPECT_EQ(human_bytes(512), "512 B");
  EXPECT_EQ(human_bytes(1536), "1.5 KiB");
  EXPECT_EQ(human_bytes(21.3 * 1024 * 1024 * 1024), "21.3 GiB");
  EXPECT_EQ(human_bytes(1e12 * 3084), "2.7 PiB");
}
