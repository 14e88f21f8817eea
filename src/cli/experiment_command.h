#pragma once

#include <string>

#include "cli/cli_options.h"
#include "cli/command.h"
#include "cli/overrides.h"

namespace ampbench::cli {

// `ampbench --config FILE [...]`, the command without a subcommand: reads the config with the command
// line's overrides, then runs what they ask for: --max-batch's search (max_batch_command.h), a sweep when
// the config or --sweep has one (sweep_command.h), else one run (run_command.h). --list-models lists the
// reference models instead.
class ExperimentCommand : public Command {
 public:
  explicit ExperimentCommand(const CliOptions& options) : options_(options) {}
  int run() override;
  // "config error: WHERE (from --OPTION): PROBLEM", the option named when the command line set the value.
  std::string input_error_line(const util::InputError& error) const override {
    return config_error_line(error, overrides_);
  }

 private:
  const CliOptions& options_;
  Overrides overrides_;  // filled as the config is read, so that an error thrown on the way has them
};

}  // namespace ampbench::cli
