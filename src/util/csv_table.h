#pragma once

#include <functional>
#include <string>
#include <vector>

namespace ampbench::util {

// A CSV file as a table of columns: the header is the columns' names, each row's cells come from the
// columns' cell functions, in the same order, so a cell can never drift from its name.
template <typename Row>
struct CsvColumn {
  const char* name;
  std::function<std::string(const Row&)> cell;  // "" for an undefined value, never 0
};

template <typename Row>
using CsvColumns = std::vector<CsvColumn<Row>>;

template <typename Row>
std::string csv_header(const CsvColumns<Row>& columns) {
  std::string line;
  for (const auto& column : columns) {
    if (!line.empty()) line += ',';
    line += column.name;
  }
  return line;
}

template <typename Row>
std::string render_csv(const CsvColumns<Row>& columns, const std::vector<Row>& rows) {
  std::string out = csv_header(columns) + "\n";
  for (const auto& row : rows) {
    for (size_t i = 0; i < columns.size(); ++i) {
      if (i) out += ',';
      out += columns[i].cell(row);
    }
    out += "\n";
  }
  return out;
}

}  // namespace ampbench::util
