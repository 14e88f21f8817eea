#include "report/report.h"

#include <utility>

#include "amp/peak_flops.h"
#include "util/enum_names.h"

namespace ampbench::report {
namespace {

constexpr util::EnumNames<FidelityVerdict, 3> kVerdictNames{{
    {FidelityVerdict::pass, "pass"},
    {FidelityVerdict::fail, "fail"},
    {FidelityVerdict::inconclusive, "inconclusive"},
}};

// 11181642 as "11,181,642": counts a reader compares by eye.
std::string with_thousands(int64_t value) {
  auto digits = std::to_string(value);
  for (auto at = int64_t(digits.size()) - 3; at > (value < 0 ? 1 : 0); at -= 3)
    digits.insert(size_t(at), ",");
  return digits;
}

}  // namespace

const std::vector<WarningKindRow>& warning_kinds() {
  using K = WarningKind;
  static const std::vector<WarningKindRow> rows{
      {K::diverged, "diverged",
       "a trial's training or validation loss was not finite: it stopped and counts in no figure"},
      {K::oom, "oom", "a trial ran out of memory: it counts in no figure"},
      {K::failed, "failed", "a trial failed with an error: it counts in no figure"},
      {K::interrupted, "interrupted",
       "a signal stopped the run during a trial or an untimed pass: what it measured before stands"},
      {K::skipped, "skipped",
       "the device cannot run the mode (below the row's needs_capability, or TF32 on a CPU)"},
      {K::no_tensor_cores, "no_tensor_cores", "fp16 on a GPU below compute capability 7.0: no tensor cores"},
      {K::no_16bit_arithmetic, "no_16bit_arithmetic",
       "a CPU without the mode's 16-bit arithmetic runs it through fp32, slower than fp32"},
      {K::no_float8_arithmetic, "no_float8_arithmetic",
       "the device has no float8 arithmetic: the mode's figures show float8's numerics, not its speed"},
      {K::scale_collapse, "scale_collapse",
       "fp16's loss scale backed off 5 or more steps in a row, or fell below 1"},
      {K::data_on_host, "data_on_host",
       "the data did not fit the device: batches are copied from host memory inside the timing"},
      {K::outlier, "outlier",
       "an epoch's time lies far from its mode's median (the MAD rule, and 5 % or more)"},
      {K::high_cv, "high_cv", "a mode's epochs' samples/s vary by more than 5 % (coefficient of variation)"},
      {K::debug_build, "debug_build",
       "ampbench was not built in Release: its times are not the library's speed"},
      {K::few_repeats, "few_repeats", "fewer than 3 trials per mode: no speed-up interval, no speed verdict"},
      {K::no_noise_floor, "no_noise_floor",
       "one fidelity seed: the verdict has no noise floor and may be luck"},
      {K::fidelity_inconclusive, "fidelity_inconclusive",
       "the fidelity interval straddles the tolerance: the warning says how many seeds would decide"},
      {K::precision_not_applied, "precision_not_applied",
       "the profiled pass ran under 90 % of a 16-bit mode's matrix FLOPs in 16 bits, or a float8 or float4 "
       "mode ran no linear layer in its format"},
      {K::profile_failed, "profile_failed", "a mode's profiled pass failed"},
      {K::never_stepped, "never_stepped", "fp16 skipped every optimizer step: its weights never moved"},
      {K::slow_mode, "slow_mode", "a mode ran at under half fp32's speed"},
      {K::contention, "contention", "a timed epoch's threads waited for a CPU over 10 % of their time"},
      {K::setup_failed, "setup_failed", "the run ended before its first trial: nothing was trained"},
      {K::flops_uncounted, "flops_uncounted",
       "ops whose FLOPs the count leaves out: TFLOP/s and MFU are lower bounds"},
      {K::emulated, "emulated",
       "the mode's products were emulated (the device has no kernels for its format, or they failed the "
       "probe): its time is the emulation's, not the format's; no speed-up is read from it"},
      {K::pass_failed, "pass_failed",
       "a mode's lost-update audit, numerics pass or divergence replay failed: its figures are missing"},
      {K::optimizer_fallback, "optimizer_fallback",
       "the fused optimizer kernel failed its check on bf16 weights: they were stepped through fp32 copies"},
      {K::numerics_unmeasured, "numerics_unmeasured",
       "the numerics pass was asked for and no mode it observes was run: nothing was measured"},
      {K::first_epoch_only, "first_epoch_only",
       "a one-epoch run: every speed figure comes from epoch 1, which the warm-up's costs may still be in"},
      {K::profile_contention, "profile_contention",
       "a profiled pass's threads waited for a CPU over 10 % of their time (and 20 ms or more): its op times "
       "include the wait"},
  };
  return rows;
}

std::string_view to_string(WarningKind kind) { return warning_kinds().at(static_cast<size_t>(kind)).name; }
std::string_view to_string(FidelityVerdict verdict) { return util::name_of(kVerdictNames, verdict); }

std::optional<FidelityVerdict> fidelity_verdict_named(std::string_view name) {
  for (const auto& [verdict, verdict_name] : kVerdictNames)
    if (verdict_name == name) return verdict;
  return std::nullopt;
}

RunContext make_run_context(const config::ExperimentConfig& config, measure::Environment environment) {
  RunContext context{config.name,
                     config.model.type,
                     config.precision.modes,
                     config.repeats,
                     config.precision.fidelity_tolerance,
                     config.gates,
                     config::to_json(config),
                     std::move(environment),
                     {},
                     {},
                     {},
                     {},
                     config.numerics.enabled()};
  context.archive = config.model.spec->archive();
  auto flops = config.model.spec->train_flops(config::input_spec(config.data));
  context.train_flops_per_sample = flops.per_sample;
  context.flops_uncounted = std::move(flops.uncounted);
  const bool on_gpu = context.environment.device.starts_with("cuda");
  for (auto mode : config.precision.modes) {
    std::optional<double> peak;
    if (auto given = config.peak_tflops.find(mode); given != config.peak_tflops.end()) {
      peak = given->second;
    } else if (on_gpu) {
      peak = amp::dense_peak_tflops(context.environment.device_name, mode);
    }
    if (peak) context.peak_tflops[mode] = *peak;
  }
  return context;
}

std::string model_line(const RunReport& report) {
  const auto& measured = report.measured;
  std::string line = "model: " + with_thousands(measured.model_parameters) + " trainable parameters, " +
                     with_thousands(measured.model_frozen_parameters) + " frozen, " +
                     with_thousands(measured.model_buffers) + " buffer elements";
  if (measured.model_constants > 0)
    line += ", " + with_thousands(measured.model_constants) + " in constants the export lifted";
  if (const auto& archive = report.context.archive) {
    line += "; archive " + archive->fingerprint + ", exported by torch " +
            (archive->torch_version.empty() ? std::string("(unrecorded)") : archive->torch_version);
  }
  return line;
}

}  // namespace ampbench::report
