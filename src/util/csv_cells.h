#pragma once

#include <charconv>
#include <optional>
#include <string>
#include <type_traits>

namespace ampbench::util {

// Cells of the tidy CSV files.

// Shortest text that reads back to the same double.
inline std::string csv_number(double value) {
  char buffer[32];
  auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
  return std::string(buffer, result.ptr);
}

// Empty when undefined, never 0.
template <typename T>
std::string optional_cell(const std::optional<T>& value) {
  if (!value) return "";
  if constexpr (std::is_floating_point_v<T>) {
    return csv_number(*value);
  } else {
    return std::to_string(*value);
  }
}

// RFC 4180: quoted when it holds a comma, a quote or a line break, quotes doubled.
inline std::string text_cell(const std::optional<std::string>& value) {
  if (!value) return "";
  if (value->find_first_of(",\"\n\r") == std::string::npos) return *value;
  std::string quoted = "\"";
  for (char c : *value) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

}  // namespace ampbench::util
