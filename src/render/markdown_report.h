#pragma once

#include <string>

#include "report/report.h"

namespace ampbench::report {

// GitHub-flavoured Markdown for CI job summaries and pull requests: a heading, where it ran, the
// per-mode table against fp32, and the warnings.
std::string to_markdown(const RunReport& report);

}  // namespace ampbench::report
