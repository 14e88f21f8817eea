#pragma once

// What the parity tests against Python originals share: the Python that has the originals, and running
// an oracle script, which exits kOracleSkipped (and says why) when its package is not installed.
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>
#include <torch/serialize.h>
#include <torch/torch.h>

#include "build_paths.h"
#include "read_file.h"

namespace ampbench::testing {

inline constexpr int kOracleSkipped = 77;

// .venv-cuda's Python, which scripts/test installs the originals into; else python3's own packages.
inline std::string oracle_python() {
  const auto venv = std::filesystem::path(source_dir()) / ".venv-cuda" / "bin" / "python";
  return std::filesystem::exists(venv) ? venv.string() : "python3";
}

inline void write_tensors(const c10::Dict<std::string, torch::Tensor>& tensors,
                          const std::filesystem::path& path) {
  auto bytes = torch::pickle_save(tensors);
  std::ofstream(path, std::ios::binary).write(bytes.data(), std::streamsize(bytes.size()));
}

inline c10::impl::GenericDict read_tensors(const std::filesystem::path& path) {
  auto bytes = read_file(path);
  return torch::pickle_load(std::vector<char>(bytes.begin(), bytes.end())).toGenericDict();
}

// Runs tests/parity/SCRIPT with `arguments`, its output into `log`; the calling test skips (and says
// why) when the oracle does. Call through ASSERT_NO_FATAL_FAILURE, then return if IsSkipped().
inline void run_oracle(const std::string& script, const std::string& arguments,
                       const std::filesystem::path& log) {
  const std::string command = oracle_python() + " " + source_dir() + "/tests/parity/" + script + " " +
                              arguments + " > " + log.string() + " 2>&1";
  const int status = std::system(command.c_str());
  if (WIFEXITED(status) && WEXITSTATUS(status) == kOracleSkipped) GTEST_SKIP() << read_file(log);
  ASSERT_EQ(status, 0) << command << "\n" << read_file(log);
}

}  // namespace ampbench::testing
