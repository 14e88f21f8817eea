#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "amp/precision_mode.h"
#include "config/experiment_config.h"
#include "measure/environment.h"
#include "measure/statistics.h"
#include "models/registry.h"
#include "passes/experiment_result.h"

namespace ampbench::report {

// The report model: what a run measured (train::ExperimentResult) with where it ran, its summary against
// fp32, warnings and gate verdicts, rendered by the json/csv/markdown/console renderers. An optional that
// is empty means "undefined here" and is written as null / an empty cell, never as 0.

// report.json's shape. Any change to it (a field or an enum value added, removed, renamed or given another
// meaning) raises the version, and docs/report.schema.json follows; docs/reports.md lists the versions.
constexpr int kSchemaVersion = 21;

struct StepPercentiles {
  double p50 = 0, p90 = 0, p99 = 0;
};

// Whether a mode's final validation loss matches fp32's within precision.fidelity_tolerance: pass when
// the 95 % interval of the paired difference over seeds lies inside +-tolerance, fail when it lies wholly
// outside (beyond the tolerance and the noise), inconclusive when it straddles a bound; fail too when the
// mode never took an optimizer step at some seed. With one seed
// there is no interval: the difference itself is judged, and a warning says there is no noise floor.
enum class FidelityVerdict { pass, fail, inconclusive };
std::string_view to_string(FidelityVerdict verdict);
// The verdict report.json names, or nullopt for a name that is none.
std::optional<FidelityVerdict> fidelity_verdict_named(std::string_view name);

// A mode's final validation figures over the fidelity seeds, and against fp32's at the same seeds.
struct FidelitySummary {
  int64_t seeds = 0;                        // seeds at which the mode finished
  measure::Summary val_loss;                // over those seeds (at the run's seed: the timed trials' median)
  std::optional<double> val_accuracy_mean;  // over those seeds
  std::optional<double> val_perplexity_mean;  // language models
  // Against fp32 (empty for fp32 itself and without fp32): over the seeds both finished.
  int64_t paired_seeds = 0;
  std::optional<double> delta_mean;                 // mean of (val loss - fp32's) over paired seeds
  std::optional<measure::Interval> delta_interval;  // its 95 % t interval (two or more paired seeds)
  std::optional<FidelityVerdict> verdict;
  std::optional<int64_t> seeds_needed;  // inconclusive: paired seeds in all that would decide, at this spread
  // Seeds at which fp16 skipped every optimizer step (inf/NaN gradients throughout): the mode never
  // trained there, so its verdict is fail whatever its loss.
  int64_t seeds_never_stepped = 0;
  double tolerance = 0;  // the largest |delta| that passes (precision.fidelity_tolerance)
};

// One mode over all its trials, and against the fp32 baseline (comparisons empty without fp32).
// A finished timed trial's compared epochs (summary.h: first_compared_epoch) and its samples/s over them.
struct TrialRate {
  int64_t trial = 1;
  std::vector<int64_t> epochs;
  double samples_per_second = 0;
};

struct ModeSummary {
  amp::PrecisionMode mode = amp::PrecisionMode::fp32;
  // Its products were emulated (a block-scaled mode on a device without its kernels): no speed is read from
  // its time.
  bool emulated = false;
  int64_t trials = 0;
  std::vector<int64_t> epochs_compared;         // the first epoch is left out when there are several
  std::vector<TrialRate> trials_compared;       // each finished timed trial's, in the order they ran
  measure::Summary samples_per_second;          // over compared epochs x trials
  measure::Summary epoch_seconds;               // over compared epochs x trials
  std::optional<StepPercentiles> step_seconds;  // over the compared epochs' steps (CPU only)
  // What the process got of the CPU (train::EpochRecord::cpu): the median compared epoch's share of the
  // CPU time its threads could use, and the largest share of it they spent waiting for a CPU.
  std::optional<double> cpu_share;
  std::optional<double> run_queue_wait_share;
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
  // The fp8 and pure bf16 modes, where bf16 ran too: against mixed bf16, the mode fp8 is built on and the
  // one pure bf16 is the alternative to.
  std::optional<double> speedup_vs_bf16;
  std::optional<measure::Interval> speedup_vs_bf16_interval;
  std::optional<double> memory_ratio_vs_fp32;
  std::optional<double> activation_ratio_vs_fp32;
  // Static memory (weights, gradients, optimizer state, as the allocator held it) over fp32's and bf16's.
  std::optional<double> static_ratio_vs_fp32;
  std::optional<double> static_ratio_vs_bf16;
  // The pure bf16 modes: of the audited steps' weight updates, the share rounded away, and the share of
  // their magnitude the stored weights did not take (train::UpdateAudit).
  std::optional<double> lost_update_share;
  std::optional<double> lost_update_mass;
  std::optional<double> val_loss_delta_vs_fp32;
  FidelitySummary fidelity;
  // fp32's seed-to-seed standard deviation of the final val loss (two or more seeds): the noise floor
  // every mode's fidelity is judged against. The same in every mode's summary; empty without fp32.
  std::optional<double> fidelity_noise_floor;
  // Cosine similarity of the first batch's gradient (at the initial weights) with fp32's.
  std::optional<double> grad_cosine_vs_fp32;
  // The profiled pass's share of matrix FLOPs that ran in fp16/bf16 (empty without one).
  std::optional<double> low_precision_flop_share;
};

// One gate's verdict (see gates.h).
struct GateResult {
  config::Gate gate = config::Gate::min_speedup;
  amp::PrecisionMode mode = amp::PrecisionMode::fp32;
  double threshold = 0;
  std::optional<double> value;  // empty when the mode did not finish
  bool passed = false;
  std::string message;  // which and why, in a line
};

// What a warning is about. Each kind is a row of warning_kinds(): its name in reports and what it means.
enum class WarningKind {
  diverged,
  oom,
  failed,
  interrupted,
  skipped,
  no_tensor_cores,
  no_16bit_arithmetic,
  no_float8_arithmetic,
  scale_collapse,
  data_on_host,
  outlier,
  high_cv,
  debug_build,
  few_repeats,
  no_noise_floor,
  fidelity_inconclusive,
  precision_not_applied,
  profile_failed,
  never_stepped,
  slow_mode,
  contention,
  setup_failed,
  flops_uncounted,
  emulated,
  pass_failed,
  optimizer_fallback,
  numerics_unmeasured,
  first_epoch_only,
  profile_contention,
};
struct WarningKindRow {
  WarningKind kind;
  std::string_view name;     // report.json's warnings[].kind
  std::string_view meaning;  // docs/reports.md's table of warning kinds says the same (a test holds them)
};
// Every kind, in the enum's order: the one list report.json's schema and the docs are checked against.
const std::vector<WarningKindRow>& warning_kinds();
std::string_view to_string(WarningKind kind);

// Something about the measurement a reader should know, with what to do about it.
struct Warning {
  WarningKind kind = WarningKind::debug_build;
  std::optional<amp::PrecisionMode> mode;
  std::string message;
  std::string advice;
};

// What the renderers need to know about the run beside its measurements, built once before it starts.
struct RunContext {
  std::string name;                       // the experiment's
  std::string model;                      // its model type
  std::vector<amp::PrecisionMode> modes;  // the configured modes, in order (report.json records their rows)
  int64_t repeats = 1;
  double fidelity_tolerance = 0.05;  // largest |val loss - fp32's| that passes
  config::Gates gates;
  nlohmann::json resolved_config;  // recorded in report.json as it is; nothing reads values back from it
  measure::Environment environment;
  std::optional<double> train_flops_per_sample;      // matrix FLOPs of a sample's training step
  std::vector<std::string> flops_uncounted;          // the ops whose FLOPs it leaves out, and why
  std::map<amp::PrecisionMode, double> peak_tflops;  // the device's dense peak per mode, where known
  std::optional<models::ArchiveIdentity> archive;    // an exported model's
  bool numerics_requested = false;                   // the config (or --numerics) asked for the numerics pass
};
// The context of a run of `config` in `environment`, with the work's static facts: the FLOPs of a training
// sample, and each mode's peak TFLOP/s (the config's, else the GPU's from amp/peak_flops.h).
RunContext make_run_context(const config::ExperimentConfig& config, measure::Environment environment);

struct RunReport {
  RunContext context;
  train::ExperimentResult measured;
  std::vector<ModeSummary> summary;
  std::vector<Warning> warnings;
  std::vector<GateResult> gates;  // filled once every trial finished
};

// What the model is, in one line for the console and Markdown reports: its parameters (trainable and
// frozen) and buffer elements, and an exported model's archive and the torch that exported it.
std::string model_line(const RunReport& report);

}  // namespace ampbench::report
