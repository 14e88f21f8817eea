#include "util/printable.h"

#include <cstdio>

namespace ampbench::util {
namespace {

std::string escaped(std::string_view text) {
  std::string out;
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte >= 0x20 && byte != 0x7f) {
      out += c;
      continue;
    }
    char code[5];
    std::snprintf(code, sizeof code, "\\x%02x", byte);
    out += code;
  }
  return out;
}

}  // namespace

std::string printable(std::string_view text, size_t max_bytes) {
  if (text.size() <= max_bytes) return escaped(text);
  const size_t half = max_bytes / 2;
  return escaped(text.substr(0, half)) + " ... (" + std::to_string(text.size() - 2 * half) + " bytes) ... " +
         escaped(text.substr(text.size() - half));
}

}  // namespace ampbench::util
