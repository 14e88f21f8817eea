#include "report/report.h"

#include <utility>

#include "amp/peak_flops.h"
#include "util/enum_names.h"

namespace ampbench::report {
namespace {

constexpr util::EnumNames<WarningKind, 23> kWarningNames{{
    {WarningKind::diverged, "diverged"},
    {WarningKind::oom, "oom"},
    {WarningKind::failed, "failed"},
    {WarningKind::interrupted, "interrupted"},
    {WarningKind::skipped, "skipped"},
    {WarningKind::no_tensor_cores, "no_tensor_cores"},
    {WarningKind::no_16bit_arithmetic, "no_16bit_arithmetic"},
    {WarningKind::no_float8_arithmetic, "no_float8_arithmetic"},
    {WarningKind::scale_collapse, "scale_collapse"},
    {WarningKind::data_on_host, "data_on_host"},
    {WarningKind::outlier, "outlier"},
    {WarningKind::high_cv, "high_cv"},
    {WarningKind::debug_build, "debug_build"},
    {WarningKind::few_repeats, "few_repeats"},
    {WarningKind::no_noise_floor, "no_noise_floor"},
    {WarningKind::fidelity_inconclusive, "fidelity_inconclusive"},
    {WarningKind::precision_not_applied, "precision_not_applied"},
    {WarningKind::profile_failed, "profile_failed"},
    {WarningKind::never_stepped, "never_stepped"},
    {WarningKind::slow_mode, "slow_mode"},
    {WarningKind::contention, "contention"},
    {WarningKind::setup_failed, "setup_failed"},
    {WarningKind::flops_uncounted, "flops_uncounted"},
}};

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

std::string_view to_string(WarningKind kind) { return util::name_of(kWarningNames, kind); }
std::string_view to_string(FidelityVerdict verdict) { return util::name_of(kVerdictNames, verdict); }

RunContext make_run_context(const config::ExperimentConfig& config, measure::Environment environment) {
  RunContext context{config.name,
                     config.model.type,
                     config.repeats,
                     config.precision.fidelity_tolerance,
                     config.gates,
                     config::to_json(config),
                     std::move(environment),
                     {},
                     {}};
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
  if (const auto& archive = report.context.archive) {
    line += "; archive " + archive->fingerprint + ", exported by torch " +
            (archive->torch_version.empty() ? std::string("(unrecorded)") : archive->torch_version);
  }
  return line;
}

}  // namespace ampbench::report
