#pragma once

#include <string>
#include <vector>

#include "report/report.h"
#include "report/text_table.h"

namespace ampbench::report {

// The per-mode summary as text cells, header first: what the console and Markdown renderers both show.
// Undefined values are "-".
TextRows summary_table(const RunReport& report);

// Which column holds the speed-up (the console colours it).
inline constexpr size_t kSpeedupColumn = 4;

// One line that says what the table's figures are computed over.
std::string summary_footnote(const RunReport& report);

}  // namespace ampbench::report
