#include "report/report.h"

#include <utility>

#include "util/enum_names.h"

namespace ampbench::report {
namespace {

constexpr util::EnumNames<WarningKind, 17> kWarningNames{{
    {WarningKind::diverged, "diverged"},
    {WarningKind::oom, "oom"},
    {WarningKind::failed, "failed"},
    {WarningKind::interrupted, "interrupted"},
    {WarningKind::skipped, "skipped"},
    {WarningKind::no_tensor_cores, "no_tensor_cores"},
    {WarningKind::no_16bit_arithmetic, "no_16bit_arithmetic"},
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
}};

constexpr util::EnumNames<FidelityVerdict, 3> kVerdictNames{{
    {FidelityVerdict::pass, "pass"},
    {FidelityVerdict::fail, "fail"},
    {FidelityVerdict::inconclusive, "inconclusive"},
}};

}  // namespace

std::string_view to_string(WarningKind kind) { return util::name_of(kWarningNames, kind); }
std::string_view to_string(FidelityVerdict verdict) { return util::name_of(kVerdictNames, verdict); }

RunContext make_run_context(const config::ExperimentConfig& config, measure::Environment environment) {
  return {config.name,  config.model.type,       config.repeats,        config.precision.fidelity_tolerance,
          config.gates, config::to_json(config), std::move(environment)};
}

}  // namespace ampbench::report
