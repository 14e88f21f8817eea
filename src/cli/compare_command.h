#pragma once

#include <string>

#include <CLI/CLI.hpp>

#include "cli/command.h"
#include "compare/run_compare.h"

namespace ampbench::cli {

// `ampbench compare BASE NEW [--max-slowdown F ...] [--markdown FILE|-] [--export-json FILE|-] [--force]`:
// judges two report.json files mode by mode (compare::run_compare), prints the comparison and returns its
// exit code (3 for a regression, 5 for a change one trial cannot judge).
class CompareCommand : public Command {
 public:
  // Declares the subcommand and its options on `app`.
  explicit CompareCommand(CLI::App& app);
  bool chosen() const { return command_->parsed(); }
  int run() override;
  // "compare error: FILE: PROBLEM".
  std::string input_error_line(const util::InputError& error) const override;

 private:
  CLI::App* command_;
  compare::CompareRequest request_;
};

}  // namespace ampbench::cli
