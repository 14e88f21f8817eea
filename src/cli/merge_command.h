#pragma once

#include <string>

#include <CLI/CLI.hpp>

#include "cli/command.h"
#include "sweep/merge.h"

namespace ampbench::cli {

// `ampbench merge FOLDER... [--out DIR]`: joins the sweep folders of a sweep's shards into one sweep report
// (sweep::run_merge) and prints its table.
class MergeCommand : public Command {
 public:
  // Declares the subcommand and its options on `app`.
  explicit MergeCommand(CLI::App& app);
  bool chosen() const { return command_->parsed(); }
  int run() override;
  // "merge error: FOLDER: PROBLEM".
  std::string input_error_line(const util::InputError& error) const override;

 private:
  CLI::App* command_;
  sweep::MergeRequest request_;
};

}  // namespace ampbench::cli
