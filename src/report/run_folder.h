#pragma once

#include <filesystem>
#include <string>

namespace ampbench::report {

// Creates a new folder <output_dir>/<name>-<UTC time>[-N] for one run and returns it; never reuses an
// existing folder, so an earlier run is never overwritten. Throws std::runtime_error when it cannot.
std::filesystem::path create_run_folder(const std::filesystem::path& output_dir, const std::string& name);

// Writes the whole file or nothing: to a temporary file beside it, then renamed over it.
void write_file_atomically(const std::filesystem::path& path, const std::string& content);

}  // namespace ampbench::report
