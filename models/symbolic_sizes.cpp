#include "models/symbolic_sizes.h"

#include <algorithm>
#include <cctype>
#include <functional>
#include <numeric>

namespace ampbench::models {
namespace {

using nlohmann::json;

// A reader of sympy's srepr for the integer expressions of tensor sizes: Integer(n), Symbol('s0', ...),
// and Add, Mul, Pow, FloorDiv, CleanDiv, Mod, PythonMod, Max and Min of them. Anything else, or a symbol
// without a value, reads as nullopt.
class SizeExpression {
 public:
  SizeExpression(const std::string& text, const SymbolValues& symbols) : text_(text), symbols_(symbols) {}

  std::optional<int64_t> value() {
    auto result = expression();
    return at_ == text_.size() ? result : std::nullopt;
  }

 private:
  using Args = std::vector<std::optional<int64_t>>;

  std::optional<int64_t> expression() {
    const auto name = word();
    if (!take('(')) return std::nullopt;
    if (name == "Integer") return closed(integer());
    if (name == "Symbol") return closed(symbol());
    Args args;
    do {
      args.push_back(expression());
    } while (take(','));
    if (!take(')')) return std::nullopt;
    return apply(name, args);
  }

  static std::optional<int64_t> apply(const std::string& name, const Args& args) {
    if (args.empty() || std::any_of(args.begin(), args.end(), [](const auto& a) { return !a; }))
      return std::nullopt;
    std::vector<int64_t> v;
    for (const auto& a : args) v.push_back(*a);
    if (name == "Add") return std::accumulate(v.begin(), v.end(), int64_t{0});
    if (name == "Mul") return std::accumulate(v.begin(), v.end(), int64_t{1}, std::multiplies<>());
    if (name == "Max") return *std::max_element(v.begin(), v.end());
    if (name == "Min") return *std::min_element(v.begin(), v.end());
    if (v.size() != 2 || v[1] == 0) return std::nullopt;
    if (name == "Pow" && v[1] > 0) return power(v[0], v[1]);
    if (name == "FloorDiv" || name == "CleanDiv") return floor_div(v[0], v[1]);
    if (name == "Mod" || name == "PythonMod") return v[0] - floor_div(v[0], v[1]) * v[1];
    return std::nullopt;
  }

  static int64_t floor_div(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }
  static int64_t power(int64_t base, int64_t exponent) {
    int64_t out = 1;
    while (exponent-- > 0) out *= base;
    return out;
  }

  std::optional<int64_t> integer() {
    const auto start = at_;
    if (at_ < text_.size() && text_[at_] == '-') ++at_;
    while (at_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[at_]))) ++at_;
    if (at_ == start) return std::nullopt;
    return std::stoll(text_.substr(start, at_ - start));
  }

  // Symbol('s0', positive=True, integer=True): the name, its assumptions skipped.
  std::optional<int64_t> symbol() {
    if (!take('\'')) return std::nullopt;
    const auto end = text_.find('\'', at_);
    if (end == std::string::npos) return std::nullopt;
    const auto name = text_.substr(at_, end - at_);
    at_ = end + 1;
    while (at_ < text_.size() && text_[at_] != ')') ++at_;
    const auto found = symbols_.find(name);
    return found == symbols_.end() ? std::nullopt : std::optional(found->second);
  }

  std::optional<int64_t> closed(std::optional<int64_t> value) { return take(')') ? value : std::nullopt; }

  std::string word() {
    skip_spaces();
    const auto start = at_;
    while (at_ < text_.size() && std::isalnum(static_cast<unsigned char>(text_[at_]))) ++at_;
    return text_.substr(start, at_ - start);
  }

  bool take(char c) {
    skip_spaces();
    if (at_ >= text_.size() || text_[at_] != c) return false;
    ++at_;
    return true;
  }

  void skip_spaces() {
    while (at_ < text_.size() && text_[at_] == ' ') ++at_;
  }

  const std::string& text_;
  const SymbolValues& symbols_;
  size_t at_ = 0;
};

// The symbol a size names alone ("s0"), if it is one.
std::optional<std::string> lone_symbol(const json& size) {
  if (!size.contains("as_expr")) return std::nullopt;
  const auto text = size.at("as_expr").value("expr_str", "");
  const std::string prefix = "Symbol('";
  if (!text.starts_with(prefix)) return std::nullopt;
  const auto end = text.find('\'', prefix.size());
  if (end == std::string::npos || text.find('(', prefix.size()) != std::string::npos) return std::nullopt;
  return text.substr(prefix.size(), end - prefix.size());
}

}  // namespace

std::optional<int64_t> size_value(const json& size, const SymbolValues& symbols) {
  if (size.contains("as_int")) return size.at("as_int").get<int64_t>();
  if (!size.contains("as_expr") || !size.at("as_expr").contains("expr_str")) return std::nullopt;
  const auto text = size.at("as_expr").at("expr_str").get<std::string>();
  return SizeExpression(text, symbols).value();
}

std::optional<std::vector<int64_t>> tensor_sizes(const json& tensor_values, const std::string& name,
                                                 const SymbolValues& symbols) {
  if (!tensor_values.contains(name)) return std::nullopt;
  std::vector<int64_t> sizes;
  for (const auto& size : tensor_values.at(name).at("sizes")) {
    const auto value = size_value(size, symbols);
    if (!value) return std::nullopt;
    sizes.push_back(*value);
  }
  return sizes;
}

SymbolValues input_symbols(const json& input_sizes, const std::vector<int64_t>& sample_shape) {
  SymbolValues symbols;
  for (size_t i = 0; i < input_sizes.size(); ++i) {
    const auto name = lone_symbol(input_sizes[i]);
    if (!name) continue;
    if (i == 0)
      symbols[*name] = 1;
    else if (i - 1 < sample_shape.size())
      symbols[*name] = sample_shape[i - 1];
  }
  return symbols;
}

}  // namespace ampbench::models
