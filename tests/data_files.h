#pragma once
// Tiny data files in each format the readers take, written by the tests themselves.

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <vector>

namespace ampbench::test_data {

inline void write_bytes(const std::filesystem::path& path, const std::vector<uint8_t>& bytes) {
  std::ofstream(path, std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

inline void put_u32(std::vector<uint8_t>& out, uint32_t v) {
  for (int shift : {24, 16, 8, 0}) out.push_back(uint8_t(v >> shift));
}

// An IDX image file of n rows x cols images whose pixel i of image k is (k + i) % 256, and its labels.
inline std::vector<uint8_t> idx_images(uint32_t n, uint32_t rows, uint32_t cols) {
  std::vector<uint8_t> out;
  put_u32(out, 0x803), put_u32(out, n), put_u32(out, rows), put_u32(out, cols);
  for (uint32_t k = 0; k < n; ++k)
    for (uint32_t i = 0; i < rows * cols; ++i) out.push_back(uint8_t((k + i) % 256));
  return out;
}

inline std::vector<uint8_t> idx_labels(std::vector<uint8_t> labels) {
  std::vector<uint8_t> out;
  put_u32(out, 0x801), put_u32(out, uint32_t(labels.size()));
  out.insert(out.end(), labels.begin(), labels.end());
  return out;
}

inline std::vector<uint8_t> cifar_records(int n, uint8_t label) {
  std::vector<uint8_t> out;
  for (int k = 0; k < n; ++k) {
    out.push_back(label);
    for (int i = 0; i < 3072; ++i) out.push_back(uint8_t(i % 251));
  }
  return out;
}

inline std::vector<uint8_t> uint16_tokens(const std::vector<uint16_t>& ids) {
  std::vector<uint8_t> out;
  for (auto id : ids) out.push_back(uint8_t(id & 0xff)), out.push_back(uint8_t(id >> 8));
  return out;
}

}  // namespace ampbench::test_data
