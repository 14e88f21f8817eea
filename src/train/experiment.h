#pragma once

#include <functional>

#include <torch/torch.h>

#include "config/experiment_config.h"
#include "report/report.h"

namespace ampbench::train {

// Runs one experiment fairly: the data is made and staged once, the initial weights are drawn once from
// the seed and copied bit for bit into every mode's model, and each mode sees the same batch order.
// Peak memory is measured per mode, from a fresh peak.
class Experiment {
 public:
  using ModeDone = std::function<void(const report::RunReport& so_far)>;

  Experiment(config::ExperimentConfig config, const torch::Device& device);
  // Runs the configured modes in order; after each one, on_mode_done sees the report so far (so the
  // caller can write it and a crash later loses nothing).
  report::RunReport run(const ModeDone& on_mode_done = {});

 private:
  config::ExperimentConfig config_;
  torch::Device device_;
};

}  // namespace ampbench::train
