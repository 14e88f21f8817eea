#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

namespace ampbench::util {

// What ampbench reads whole: a config is a few KiB, a report of a long run some MiB.
inline constexpr int64_t kMaxConfigBytes = int64_t(4) << 20;
inline constexpr int64_t kMaxReportBytes = int64_t(256) << 20;

// The whole of a regular file of at most `max_bytes`, read through one descriptor (opened without
// blocking, so a FIFO cannot hang it). Throws InputError, located at the path, for a file that cannot be
// opened, is not a regular file (a directory, FIFO or device such as /dev/zero, which could block or
// never end), or is larger; `what` names what the file was to be ("config", "report").
std::string read_bounded_file(const std::filesystem::path& path, int64_t max_bytes, const std::string& what);

}  // namespace ampbench::util
