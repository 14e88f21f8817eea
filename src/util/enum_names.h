#pragma once

#include <array>
#include <cstddef>
#include <string_view>
#include <utility>

namespace ampbench::util {

// An enum's values with the names that reports and configs spell them by.
template <typename Enum, std::size_t N>
using EnumNames = std::array<std::pair<Enum, std::string_view>, N>;

template <typename Enum, std::size_t N>
constexpr std::string_view name_of(const EnumNames<Enum, N>& names, Enum value) {
  for (const auto& [candidate, name] : names) {
    if (candidate == value) return name;
  }
  return "unknown";
}

}  // namespace ampbench::util
