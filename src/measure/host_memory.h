#pragma once

#include <cstdint>
#include <istream>
#include <optional>
#include <string>

namespace ampbench::measure {

// The memory the kernel says can be handed out now without swapping ("MemAvailable" in /proc/meminfo),
// in bytes; nullopt where the text has no such line.
std::optional<int64_t> read_mem_available(std::istream& meminfo);

// This machine's, from /proc/meminfo; nullopt where there is none (not Linux).
std::optional<int64_t> available_host_bytes();

// "512 B", "1.5 KiB", "21.3 GiB", "3.6 TiB": bytes as a person reads them.
std::string human_bytes(double bytes);

}  // namespace ampbench::measure
