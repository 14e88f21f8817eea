#pragma once

#include <torch/torch.h>

#include <nlohmann/json.hpp>

#include "config/experiment_config.h"
#include "measure/environment.h"
#include "passes/experiment.h"
#include "report/analysis.h"

namespace ampbench::testing {

// Runs the experiment of a config document on the CPU.
inline train::ExperimentResult run_on_cpu(const nlohmann::json& doc) {
  return train::Experiment(config::parse_experiment_config(doc), torch::kCPU).run();
}

// Runs an experiment on the CPU and analyses it as a run does, for tests of what its report says.
inline report::RunReport run_and_analyse(const config::ExperimentConfig& config) {
  auto measured = train::Experiment(config, torch::kCPU).run();
  auto environment = measure::capture_environment(torch::kCPU, config::to_json(config), config.seed);
  return report::analyse(report::make_run_context(config, std::move(environment)), measured);
}

}  // namespace ampbench::testing
