#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace ampbench::util {

using TextRows = std::vector<std::vector<std::string>>;  // header first

// Columns padded to their widest cell: the first left-aligned (names), the rest right-aligned
// (numbers). `decorate` may wrap a cell (colour codes) after its width was measured.
std::string render_aligned(
    const TextRows& rows,
    const std::function<std::string(size_t row, size_t column, const std::string& cell)>& decorate = {});

// The items with `separator` between them.
std::string join(const std::vector<std::string>& items, const std::string& separator);
// A tensor shape's sizes as text: {2, 3} -> "2" + separator + "3".
std::string join_sizes(const std::vector<int64_t>& sizes, const std::string& separator);

// One number as a cell, printf-style ("%.2f").
std::string format_number(const char* pattern, double value);

// A GitHub-flavoured Markdown table, numbers right-aligned.
std::string render_markdown_table(const TextRows& rows);

}  // namespace ampbench::util
