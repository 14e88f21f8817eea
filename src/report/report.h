#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "amp/mode_support.h"
#include "amp/precision_mode.h"
#include "measure/environment.h"
#include "measure/memory_probe.h"
#include "measure/statistics.h"

namespace ampbench::report {

// The report model: what a run measured, rendered by the json/csv/markdown/console renderers. An
// optional that is empty means "undefined here" and is written as null / an empty cell, never as 0.

// report.json's shape. Any change to it (a field or an enum value added, removed, renamed or given another
// meaning) raises the version, and docs/report.schema.json follows; the README lists the versions.
constexpr int kSchemaVersion = 2;

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
};

// fp16's dynamic loss scale over a whole trial, warm-up steps included. Steps are 1-based and count
// across epochs, as stopped_at_step does.
struct LossScaleTrace {
  std::vector<int64_t> skipped_steps;               // optimizer steps skipped for inf/NaN gradients
  std::vector<std::pair<int64_t, double>> changes;  // (step, the scale after it) whenever it changed
  double min_scale = 0;                             // the lowest scale reached
  int64_t longest_backoff_run = 0;                  // most consecutive optimizer steps that backed off
};

// One training run of one mode: the unit that `repeats` multiplies.
struct TrialRecord {
  amp::PrecisionMode mode = amp::PrecisionMode::fp32;
  int64_t trial = 1;                       // 1-based, per mode
  std::string status = "ok";               // ok, diverged, oom, failed, interrupted, skipped
  std::optional<int64_t> stopped_at_step;  // diverged: the first step whose loss was not finite
  std::optional<std::string> detail;       // why a trial that is not ok stopped, or did not start
  std::vector<EpochRecord> epochs;
  std::optional<LossScaleTrace> loss_scale_trace;  // fp16 only
  measure::MemoryReading memory;
  bool master_weights_fp32 = true;
  std::string initial_weights_checksum;  // equal across trials: the same initial weights
  std::string data_order_checksum;       // equal across trials: the same batches in the same order
  int64_t warmup_steps_excluded = 0;
  // The math switches the trial ran with (TF32, cuDNN autotuning) and the memory layout of the model.
  bool tf32 = false;
  bool cudnn_benchmark = false;
  bool channels_last = false;
};

struct StepPercentiles {
  double p50 = 0, p90 = 0, p99 = 0;
};

// One mode over all its trials, and against the fp32 baseline (comparisons empty without fp32).
struct ModeSummary {
  amp::PrecisionMode mode = amp::PrecisionMode::fp32;
  int64_t trials = 0;
  std::vector<int64_t> epochs_compared;               // the first epoch is left out when there are several
  measure::Summary samples_per_second;                // over compared epochs x trials
  measure::Summary epoch_seconds;                     // over compared epochs x trials
  std::optional<StepPercentiles> step_seconds;        // over the compared epochs' steps (CPU only)
  int64_t peak_bytes = 0;                             // the largest over trials
  std::optional<int64_t> static_bytes;                // weights + gradients + optimizer state (largest)
  std::optional<int64_t> activation_bytes;            // peak - static: activations and temporaries
  double val_loss = 0;                                // median over trials of the final epoch's
  double val_accuracy = 0;                            // likewise
  std::optional<double> val_perplexity;               // language models: likewise
  std::optional<double> achieved_tflops;              // training FLOPs per sample x median trial samples/s
  std::optional<double> peak_tflops;                  // the device's dense peak for this mode, when known
  std::optional<double> mfu;                          // achieved / peak
  std::optional<double> speedup_vs_fp32;              // median trial throughput / fp32's
  std::optional<measure::Interval> speedup_interval;  // 95 % bootstrap over trials (>= 2 per mode; not fp32)
  std::optional<double> memory_ratio_vs_fp32;
  std::optional<double> activation_ratio_vs_fp32;
  std::optional<double> val_loss_delta_vs_fp32;
  // |val_loss_delta_vs_fp32| within precision.fidelity_tolerance; empty for fp32 and without fp32.
  std::optional<bool> fidelity_pass;
  // Cosine similarity of the first batch's gradient (at the initial weights) with fp32's.
  std::optional<double> grad_cosine_vs_fp32;
};

// One gate's verdict (see gates.h).
struct GateResult {
  std::string gate;  // min_speedup, max_val_loss_delta, max_memory_ratio
  amp::PrecisionMode mode = amp::PrecisionMode::fp32;
  double threshold = 0;
  std::optional<double> value;  // empty when the mode did not finish
  bool passed = false;
  std::string message;  // which and why, in a line
};

// Something about the measurement a reader should know, with what to do about it.
struct Warning {
  // diverged, oom, interrupted, skipped, no_tensor_cores, no_16bit_arithmetic, scale_collapse,
  // data_on_host, outlier, high_cv, debug_build, few_repeats
  std::string kind;
  std::optional<amp::PrecisionMode> mode;
  std::string message;
  std::string advice;
};

struct RunReport {
  nlohmann::json config;
  measure::Environment environment;
  std::vector<TrialRecord> trials;  // in the order they ran (modes interleaved); skipped modes once
  std::map<amp::PrecisionMode, amp::ModeCaveat> mode_caveats;  // runs, but the reader should know (per mode)
  std::map<amp::PrecisionMode, double> grad_cosine_vs_fp32;    // modes whose first gradient was finite
  std::optional<double> train_flops_per_sample;  // analytical: 3 x 2 x the forward pass's multiply-adds
  bool data_on_device = true;  // false: too large for the device, batches copied from host memory
  std::vector<ModeSummary> summary;
  std::vector<Warning> warnings;
  std::vector<GateResult> gates;  // filled once every trial finished
  bool complete = false;          // false while trials are still running, or when the run stopped early
  std::optional<std::string>
      stopped_by;  // "SIGINT" or "SIGTERM": the run stopped early, the report is partial
};

}  // namespace ampbench::report
