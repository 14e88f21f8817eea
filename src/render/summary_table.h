#pragma once

#include <string>
#include <vector>

#include "report/report.h"
#include "util/text_table.h"

namespace ampbench::report {

// The per-mode summary as text cells, header first: what the console and Markdown renderers both show.
// Undefined values are "-". Speed and memory, one row per mode in the order the modes ran; a mode that
// finished no trial gets a row with its status (skipped, failed, ...) in its place.
util::TextRows summary_table(const RunReport& report);
// Accuracy against fp32 over the fidelity seeds: validation loss, its delta and the delta's interval, the
// fidelity verdict, the first-batch gradient cosine, and fp16's loss scale.
util::TextRows fidelity_table(const RunReport& report);

// Which column holds the speed-up (the console colours it).
inline constexpr size_t kSpeedupColumn = 4;

// One line that says what the table's figures are computed over.
std::string summary_footnote(const RunReport& report);

}  // namespace ampbench::report
