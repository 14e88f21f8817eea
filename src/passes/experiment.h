#pragma once

#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <torch/torch.h>

#include "amp/mode_support.h"
#include "config/experiment_config.h"
#include "data/dataset.h"
#include "measure/memory_probe.h"
#include "models/network.h"
#include "passes/experiment_result.h"
#include "passes/pass_context.h"
#include "passes/run_plan.h"
#include "train/batch_fit.h"
#include "train/fault_injection.h"
#include "train/model_state.h"
#include "train/progress.h"
#include "train/trainer.h"

namespace ampbench::train {

// Runs one experiment fairly: the data is made and staged once, the initial weights are drawn once from
// the seed and copied bit for bit into every mode's model, and each mode sees the same batch order.
// Peak memory is measured per trial, from a fresh peak. A trial that diverges or runs out of memory is
// reported with its status and the others still run; a stop request ends the run after the current
// step, and the result says it is partial.
class Experiment {
 public:
  using TrialDone = std::function<void(const ExperimentResult& so_far)>;

  // Makes or reads the data and stages it on the device: a data file that is missing or malformed, or
  // data too small for the batch size, throws util::InputError here, before anything is written.
  Experiment(config::ExperimentConfig config, const torch::Device& device,
             std::optional<FaultInjection> fault = std::nullopt);
  // Runs `repeats` rounds of the configured modes, interleaved (fp32, tf32, fp16, bf16, fp32, ...) so that
  // machine drift spreads over all modes; every trial starts from the same initial state. Then, with
  // precision.fidelity_seeds K > 1, trains every runnable mode once from each of the seeds seed + 1 to
  // seed + K - 1 (new initial weights and batch order, the same for every mode) for the fidelity verdict.
  // Then the audits, numerics and profiled passes the plan holds (run_plan.h), each kind of entry run by its
  // pass (pass_context.h), the profiled pass's traces written into the trace folder. After each trial that
  // ran, on_trial_done sees the result so far (so the caller can write it and a crash later loses nothing).
  ExperimentResult run(const TrialDone& on_trial_done = {}, Progress* progress = nullptr);
  // Where the profiled pass writes trace-<mode>.json (the run folder); unset: no trace files.
  void set_trace_folder(std::filesystem::path folder) { trace_folder_ = std::move(folder); }
  // Optimizer-and-loss steps in one trial: its epochs times the batches in an epoch.
  int64_t steps_per_trial() const;
  // The configured modes that can run on this device, in order (the others are reported as skipped).
  std::vector<amp::PrecisionMode> runnable_modes() const;
  // Whether `mode` trains at `batch` (at most the training set) within the memory there is, from the run's
  // initial state (drawn on the first call): Trainer::train_first_steps in a fresh model, every byte it
  // allocated released again before it returns, out of memory or not. Throws std::runtime_error when the
  // initial state cannot be made, and c10::Error for any failure other than memory running out.
  BatchFit fit_batch(amp::PrecisionMode mode, int64_t batch);
  // The training samples an epoch draws its batches from: the largest batch there can be.
  int64_t train_samples() const { return dataset_.train_size(); }

 private:
  // A model with the weights the seed draws: the run's initial state.
  std::shared_ptr<models::Network> seeded_model() const;
  // Draws the initial weights from the seed; false, with the error in the result, when they cannot be made.
  bool make_initial_state(ExperimentResult& result);
  // Each configured mode, in order, with whether it can run on this device and what to say about it.
  std::vector<std::pair<amp::PrecisionMode, amp::ModeSupport>> mode_support() const;
  // Records each mode's caveat in the result; returns the modes that cannot run here, with why.
  std::map<amp::PrecisionMode, std::string> skipped_modes(ExperimentResult& result) const;
  // What the passes work from (pass_context.h), lent for one run.
  PassContext pass_context(const std::map<amp::PrecisionMode, std::string>& skipped, Progress* progress);

  torch::Device device_;
  std::optional<FaultInjection> fault_;
  // The probe before the data: on the CPU it installs the counting allocator, which must see every tensor.
  std::unique_ptr<measure::MemoryProbe> probe_;
  data::Dataset dataset_;
  config::ExperimentConfig config_;  // fitted to the data as read
  Trainer trainer_;
  ModelState initial_;  // drawn once from the seed when the run starts
  bool initial_made_ = false;
  std::filesystem::path trace_folder_;
};

}  // namespace ampbench::train
