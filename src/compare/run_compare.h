#pragma once

#include <optional>
#include <string>

#include "compare/compare.h"

namespace ampbench::compare {

// What `ampbench compare` is asked: two report.json files, the limits, and where to write the comparison
// besides the console ("-" is stdout; empty: not written).
struct CompareRequest {
  std::string base_path, new_path;
  CompareLimits limits;
  bool force = false;  // compare reports of different experiments anyway
  std::string markdown_path, json_path;
};

struct CompareOutcome {
  Comparison comparison;
  std::string console;                       // the table and findings, for the person at the console
  std::optional<std::string> stdout_export;  // the export that goes to stdout, rendered
};

// Reads both reports, judges them (compare/compare.h) and writes the requested files, each whole or not
// at all. Throws util::InputError for a file that is not a report or reports of different experiments
// (unless force), and util::OutputError (util/output_files.h) for an output that cannot be written, or two on
// stdout; in either case before anything is written.
CompareOutcome run_compare(const CompareRequest& request);

}  // namespace ampbench::compare
