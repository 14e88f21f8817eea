#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "amp/precision_mode.h"
#include "measure/cpu_usage.h"
#include "measure/memory_probe.h"
#include "train/divergence.h"

namespace ampbench::train {

// What one trial measured: the records the reports are made of. An optional that is empty means
// "undefined here" and is written as null / an empty cell, never as 0.

struct EpochRecord {
  int64_t epoch = 0;   // 1-based
  double seconds = 0;  // timed wall time of the epoch, device synchronised at both ends
  int64_t timed_steps = 0;
  int64_t timed_samples = 0;
  double samples_per_second = 0;
  double train_loss = 0;  // mean over the epoch's timed steps (warm-up steps excluded)
  double val_loss = 0;
  double val_accuracy = 0;               // next-token accuracy for a language model
  std::optional<double> val_perplexity;  // language models: exp(val_loss)
  std::optional<double> loss_scale;      // fp16: the GradScaler's scale at the end of the epoch
  std::optional<int64_t> skipped_steps;  // fp16: optimizer steps skipped for inf/NaN gradients, so far
  // Duration of each timed step: host clock on the CPU (whose ops are synchronous), device events on a
  // GPU (recorded in the loop, read after the epoch).
  std::vector<double> step_seconds;
  // What the process got of the CPU over the timed region: the CPU time its threads used, how long they
  // waited for a CPU, and how often they were preempted.
  measure::CpuUsage cpu;
  // A profiler was recording when the timed region opened or closed: never, by design (the profiled
  // pass runs after the trials); kept so that a test can prove it.
  bool profiler_on = false;
};

// fp16's dynamic loss scale over a whole trial, warm-up steps included. Steps are 1-based and count
// across epochs, as stopped_at_step does.
struct LossScaleTrace {
  std::vector<int64_t> skipped_steps;               // optimizer steps skipped for inf/NaN gradients
  std::vector<std::pair<int64_t, double>> changes;  // (step, the scale after it) whenever it changed
  double min_scale = 0;                             // the lowest scale reached
  int64_t longest_backoff_run = 0;                  // most consecutive optimizer steps that backed off
  int64_t optimizer_steps = 0;                      // taken or skipped (gradient accumulation takes fewer)

  // Every optimizer step was skipped: the weights never moved, so the mode did not train at all.
  bool never_stepped() const {
    return optimizer_steps > 0 && static_cast<int64_t>(skipped_steps.size()) == optimizer_steps;
  }
};

// The smallest and largest of an amax tensor's values (one value under tensorwise scaling).
struct AmaxRange {
  double min = 0;
  double max = 0;
};

// What one linear layer did in float8 over a trial of an fp8 mode.
struct Float8LayerSummary {
  std::string name;  // the weight's parameter name without ".weight"
  int64_t in_features = 0;
  int64_t out_features = 0;
  int64_t float8_calls = 0;
  int64_t bf16_calls = 0;               // calls left in bf16
  std::optional<std::string> bf16_why;  // why: the shapes at::_scaled_mm could not take
  // The last training step's amaxes; empty when the layer never ran in float8 (or backward never ran).
  std::optional<AmaxRange> input_amax, weight_amax, grad_output_amax;
};

struct Float8Summary {
  std::string recipe;  // tensorwise or rowwise
  std::vector<Float8LayerSummary> layers;
};

// How a trial ended. Only an ok trial counts in the summary.
enum class TrialStatus { ok, diverged, oom, failed, interrupted, skipped };
std::string_view to_string(TrialStatus status);

// One training run of one mode: the unit that `repeats` multiplies.
struct TrialRecord {
  amp::PrecisionMode mode = amp::PrecisionMode::fp32;
  int64_t trial = 1;  // 1-based, per mode; a fidelity trial: its seed's index (1 is the run's seed)
  uint64_t seed = 0;  // of the initial weights and the batch order
  TrialStatus status = TrialStatus::ok;
  // diverged: the first step whose training loss was not finite, or the last step of the epoch whose
  // validation loss was not
  std::optional<int64_t> stopped_at_step;
  bool diverged_in_validation = false;  // the validation loss, not a training loss, was not finite
  std::optional<std::string> detail;    // why a trial that is not ok stopped, or did not start
  std::vector<EpochRecord> epochs;
  std::optional<LossScaleTrace> loss_scale_trace;  // fp16 only
  std::optional<Float8Summary> float8;             // the fp8 modes only
  // A diverged trial, or fp16 skipping more than a few steps in a row: where the numbers went wrong.
  std::optional<DivergenceDiagnosis> divergence;
  measure::MemoryReading memory;
  bool master_weights_fp32 = true;  // parameters fp32 after training (the pure bf16 modes have none)
  bool weights_kept_dtype = true;   // parameters still in the mode's weight dtype after training
  // The fused kernel ("fused SGD") that failed its check on bf16 weights, which were therefore stepped
  // through fp32 working copies; the pure bf16 modes on an affected LibTorch only.
  std::optional<std::string> optimizer_fallback;
  std::string initial_weights_checksum;  // equal across trials: the same initial weights
  std::string data_order_checksum;       // equal across trials: the same batches in the same order
  int64_t warmup_steps_excluded = 0;
  // The math switches the trial ran with (TF32, cuDNN autotuning) and the memory layout of the model.
  bool tf32 = false;
  bool cudnn_benchmark = false;
  bool channels_last = false;

  // Finished with figures to summarise.
  bool finished() const { return status == TrialStatus::ok && !epochs.empty(); }
};

}  // namespace ampbench::train
