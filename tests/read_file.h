#pragma once
// A whole file as the tests read what ampbench and the oracles wrote.
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace ampbench::testing {

inline std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace ampbench::testing
