#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace ampbench::models {

// The values of the symbols a torch.export program writes its dynamic sizes in ("s0", "s27") on one run.
using SymbolValues = std::map<std::string, int64_t>;

// One size as the program writes it, {"as_int": 8} or {"as_expr": {"expr_str": "Add(Symbol('s27', ...),
// Integer(1))", ...}} (sympy's srepr), at `symbols`' values; nullopt where it names a symbol without a
// value, a function this reader does not evaluate, or no expression at all.
std::optional<int64_t> size_value(const nlohmann::json& size, const SymbolValues& symbols);

// The sizes of tensor `name` of the graph's metadata at `symbols`' values; nullopt when the metadata lacks
// it or one size cannot be evaluated.
std::optional<std::vector<int64_t>> tensor_sizes(const nlohmann::json& tensor_values, const std::string& name,
                                                 const SymbolValues& symbols);

// The symbols of the program's input sizes (its metadata's "sizes") at a run's: the batch dimension 1 (one
// sample), the others `sample_shape`'s. A dimension written as an expression of symbols gives none.
SymbolValues input_symbols(const nlohmann::json& input_sizes, const std::vector<int64_t>& sample_shape);

}  // namespace ampbench::models
