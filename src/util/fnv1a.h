#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>

namespace ampbench::util {

// 64-bit FNV-1a: a fast, stable fingerprint (not a cryptographic hash). Chain calls through `hash`.
inline uint64_t fnv1a(const void* data, size_t size, uint64_t hash = 1469598103934665603ULL) {
  const auto* bytes = static_cast<const unsigned char*>(data);
  for (size_t i = 0; i < size; ++i) {
    hash ^= bytes[i];
    hash *= 1099511628211ULL;
  }
  return hash;
}

inline std::string hex64(uint64_t value) {
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(value));
  return text;
}

}  // namespace ampbench::util
