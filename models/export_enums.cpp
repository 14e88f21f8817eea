#include "models/export_enums.h"

#include <map>

namespace ampbench::models {

std::optional<c10::ScalarType> scalar_type_of(int64_t serialized) {
  static const std::map<int64_t, c10::ScalarType> types{
      {1, c10::kByte},        {2, c10::kChar},          {3, c10::kShort},          {4, c10::kInt},
      {5, c10::kLong},        {6, c10::kHalf},          {7, c10::kFloat},          {8, c10::kDouble},
      {9, c10::kComplexHalf}, {10, c10::kComplexFloat}, {11, c10::kComplexDouble}, {12, c10::kBool},
      {13, c10::kBFloat16},   {28, c10::kUInt16},       {29, c10::kFloat8_e4m3fn}, {30, c10::kFloat8_e5m2}};
  const auto found = types.find(serialized);
  return found == types.end() ? std::nullopt : std::optional(found->second);
}

std::optional<c10::Layout> layout_of(int64_t serialized) {
  static const std::map<int64_t, c10::Layout> layouts{
      {1, c10::kSparse},    {2, c10::kSparseCsr}, {3, c10::kSparseCsc}, {4, c10::kSparseBsr},
      {5, c10::kSparseBsc}, {6, c10::kMkldnn},    {7, c10::kStrided}};
  const auto found = layouts.find(serialized);
  return found == layouts.end() ? std::nullopt : std::optional(found->second);
}

std::optional<c10::MemoryFormat> memory_format_of(int64_t serialized) {
  static const std::map<int64_t, c10::MemoryFormat> formats{{1, c10::MemoryFormat::Contiguous},
                                                            {2, c10::MemoryFormat::ChannelsLast},
                                                            {3, c10::MemoryFormat::ChannelsLast3d},
                                                            {4, c10::MemoryFormat::Preserve}};
  const auto found = formats.find(serialized);
  return found == formats.end() ? std::nullopt : std::optional(found->second);
}

}  // namespace ampbench::models
