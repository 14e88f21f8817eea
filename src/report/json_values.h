#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace ampbench::report {

// A value, or null when it is missing: report.json writes every key, set or not.
template <typename T>
nlohmann::json optional_json(const std::optional<T>& value) {
  return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
}

// A text, or null when it is empty.
inline nlohmann::json text_or_null(const std::string& text) {
  return text.empty() ? nlohmann::json(nullptr) : nlohmann::json(text);
}

// part / whole, or nothing (null in a report) where there is no whole to take a share of.
inline std::optional<double> share(int64_t part, int64_t whole) {
  return whole > 0 ? std::optional<double>(double(part) / double(whole)) : std::nullopt;
}

}  // namespace ampbench::report
