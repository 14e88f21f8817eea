#pragma once

#include <optional>
#include <vector>

#include "app/progress_line.h"
#include "cli/cli_options.h"
#include "cli/overrides.h"
#include "run/benchmark.h"
#include "sweep/sweep_config.h"
#include "train/progress.h"

namespace ampbench::cli {

// What the run, sweep and max-batch commands start from: the request (the config file with the command
// line's overrides written in, the exports, the planted fault), the sweep's axes, and the progress the
// run publishes with the live line that shows it. The request points into it: it stays where it is made.
struct ExperimentInput {
  run::Request request;
  std::vector<sweep::SweepAxis> axes;  // the config's "sweep", then --sweep's
  train::Progress progress;
  std::optional<app::ProgressLine> progress_line;  // for a person at a terminal, once the run starts

  ExperimentInput() = default;
  ExperimentInput(const ExperimentInput&) = delete;
  ExperimentInput& operator=(const ExperimentInput&) = delete;
};

// Reads the config file with the command line's overrides and its sweep into `input`, and records in
// `overrides` which values the command line set, as it sets them, so that an error names the option behind
// a value. A key both swept and set by an option is refused: one of them would be silently lost. Throws
// util::InputError.
void read_experiment(const CliOptions& options, ExperimentInput& input, Overrides& overrides);

}  // namespace ampbench::cli
