#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include <c10/core/Layout.h>
#include <c10/core/MemoryFormat.h>
#include <c10/core/ScalarType.h>

namespace ampbench::models {

// torch.export's serialized enums (schema.yaml's ScalarType, Layout, MemoryFormat) as c10's; nullopt for
// a number the schema does not give one of these (UNKNOWN, or a newer value).
std::optional<c10::ScalarType> scalar_type_of(int64_t serialized);
std::optional<c10::Layout> layout_of(int64_t serialized);
std::optional<c10::MemoryFormat> memory_format_of(int64_t serialized);

// How a node's target names a higher-order op (torch.ops.higher_order.wrap_with_autocast, ...).
inline constexpr std::string_view kHigherOrderPrefix = "torch.ops.higher_order.";

}  // namespace ampbench::models
