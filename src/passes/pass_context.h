#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include <torch/torch.h>

#include "config/experiment_config.h"
#include "data/dataset.h"
#include "measure/memory_probe.h"
#include "models/network.h"
#include "passes/experiment_result.h"
#include "passes/run_plan.h"
#include "train/fault_injection.h"
#include "train/model_state.h"
#include "train/progress.h"
#include "train/trainer.h"

namespace ampbench::train {

// A fidelity seed's initial state and trainer, kept while the plan trains that seed's modes.
struct FidelitySeed {
  ModelState initial;
  Trainer trainer;
};

// What every pass of a run works from: the run's config (fitted to its data), device, data, the timed
// trials' trainer and initial state, the planted fault, the memory probe, where traces go and the progress
// to publish. The Experiment owns all of it and lends it to each pass.
struct PassContext {
  const config::ExperimentConfig& config;
  const torch::Device& device;
  const data::Dataset& dataset;
  const Trainer& trainer;
  const ModelState& initial;
  const std::optional<FaultInjection>& fault;
  measure::MemoryProbe& probe;
  const std::map<amp::PrecisionMode, std::string>& skipped;  // the modes that cannot run here, with why
  std::filesystem::path trace_folder;                        // empty: no trace files
  Progress* progress = nullptr;
  std::optional<FidelitySeed> fidelity_seed;  // the fidelity seed being trained (fidelity_pass.h)

  // The model in `state` (by default the run's initial state) on the device, in fp32 (laid out channels-last
  // when the config asks); fresh_model() then casts it to the mode's weight format.
  std::shared_ptr<models::Network> fp32_model(const ModelState& state) const;
  std::shared_ptr<models::Network> fresh_model(amp::PrecisionMode mode) const;
  std::shared_ptr<models::Network> fresh_model(const ModelState& state, amp::PrecisionMode mode) const;
};

// One kind of work in a run's plan, each in a file of its own: it runs one entry of the plan and adds what
// it measured to the result; it catches its own errors and records them there, so a failed pass loses
// its record, not the run.
using Pass = void (*)(const PlannedTrial& item, PassContext& context, ExperimentResult& result);

// An error's first line, for a record or a log line: the rest (CUDA's advice on debugging) would break up a
// table, and LibTorch's "[enforce fail at alloc_cpu.cpp:127] err == 0. " prefix says nothing to a user.
std::string first_line(const std::string& message);
// The first line of any error a pass meets (a c10::Error's without its stack), for its record.
std::string error_line(const std::exception& error);

}  // namespace ampbench::train
