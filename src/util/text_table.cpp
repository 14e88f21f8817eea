#include "util/text_table.h"

#include <algorithm>
#include <cstdio>
#include <sstream>

namespace ampbench::util {

std::string join(const std::vector<std::string>& items, const std::string& separator) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += separator;
    out += items[i];
  }
  return out;
}

std::string join_sizes(const std::vector<int64_t>& sizes, const std::string& separator) {
  std::vector<std::string> items;
  for (auto size : sizes) items.push_back(std::to_string(size));
  return join(items, separator);
}

std::string format_number(const char* pattern, double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, pattern, value);
  return buffer;
}

std::string render_aligned(const TextRows& rows,
                           const std::function<std::string(size_t, size_t, const std::string&)>& decorate) {
  std::vector<size_t> widths;
  for (const auto& row : rows) {
    widths.resize(std::max(widths.size(), row.size()), 0);
    for (size_t i = 0; i < row.size(); ++i) widths[i] = std::max(widths[i], row[i].size());
  }
  std::ostringstream out;
  for (size_t r = 0; r < rows.size(); ++r) {
    for (size_t i = 0; i < rows[r].size(); ++i) {
      const auto& cell = rows[r][i];
      std::string pad(widths[i] - cell.size(), ' ');
      std::string text = decorate ? decorate(r, i, cell) : cell;
      out << (i == 0 ? text + pad : pad + text) << (i + 1 < rows[r].size() ? "  " : "\n");
    }
  }
  return out.str();
}

std::string render_markdown_table(const TextRows& rows) {
  std::ostringstream out;
  for (size_t r = 0; r < rows.size(); ++r) {
    out << "|";
    for (const auto& cell : rows[r]) out << " " << cell << " |";
    out << "\n";
    if (r == 0) {
      out << "|";
      for (size_t i = 0; i < rows[r].size(); ++i) out << (i == 0 ? "---|" : "---:|");
      out << "\n";
    }
  }
  return out.str();
}

}  // namespace ampbench::util
