#include "render/json_report.h"

#include "profile/profile_json.h"
#include "render/divergence_report.h"
#include "render/numerics_report.h"
#include "report/json_values.h"
#include "report/summary_fields.h"

namespace ampbench::report {
namespace {

using train::TrialRecord;

nlohmann::json environment_json(const measure::Environment& env) {
  return {{"ampbench_version", env.ampbench_version},
          {"git_commit", env.git_commit},
          {"build_type", env.build_type},
          {"compiler", env.compiler},
          {"libtorch_version", env.libtorch_version},
          {"libtorch_choice", env.libtorch_choice},
          {"cuda_version", optional_json(env.cuda_version)},
          {"cudnn_version", optional_json(env.cudnn_version)},
          {"device", env.device},
          {"device_name", env.device_name},
          {"gpu_capability", optional_json(env.gpu_capability)},
          {"gpu_memory_bytes", optional_json(env.gpu_memory_bytes)},
          {"gpu_driver", optional_json(env.gpu_driver)},
          {"cpu_model", env.cpu_model},
          {"cpu_cores", env.cpu_cores},
          {"torch_threads", env.torch_threads},
          {"load_average", optional_json(env.load_average)},
          {"host_malloc", env.host_malloc},
          {"hostname", env.hostname},
          {"config_hash", env.config_hash},
          {"seed", env.seed},
          {"timestamp_utc", env.timestamp_utc}};
}

nlohmann::json epoch_json(const train::EpochRecord& e) {
  return {{"epoch", e.epoch},
          {"seconds", e.seconds},
          {"timed_steps", e.timed_steps},
          {"timed_samples", e.timed_samples},
          {"samples_per_second", e.samples_per_second},
          {"train_loss", e.train_loss},
          {"val_loss", e.val_loss},
          {"val_accuracy", e.val_accuracy},
          {"val_perplexity", optional_json(e.val_perplexity)},
          {"loss_scale", optional_json(e.loss_scale)},
          {"skipped_steps", optional_json(e.skipped_steps)},
          {"step_seconds", e.step_seconds},
          {"cpu", measure::cpu_usage_json(e.cpu)}};
}

nlohmann::json loss_scale_json(const std::optional<train::LossScaleTrace>& trace) {
  if (!trace) return nullptr;
  nlohmann::json changes = nlohmann::json::array();
  for (const auto& [step, scale] : trace->changes) changes.push_back({step, scale});
  return {{"skipped_steps", trace->skipped_steps},
          {"changes", changes},
          {"min_scale", trace->min_scale},
          {"longest_backoff_run", trace->longest_backoff_run},
          {"optimizer_steps", trace->optimizer_steps}};
}

// null for a trial that never ran (skipped): there is nothing measured, and 0 would read as a figure.
nlohmann::json memory_json(const TrialRecord& t) {
  if (t.status == train::TrialStatus::skipped) return nullptr;
  return {{"probe", t.memory.probe},
          {"baseline_bytes", t.memory.baseline_bytes},
          {"peak_bytes", t.memory.peak_bytes},
          {"peak_reserved_bytes", optional_json(t.memory.peak_reserved_bytes)},
          {"static_bytes", optional_json(t.memory.static_bytes)},
          {"activation_peak_bytes", optional_json(t.memory.activation_peak_bytes())}};
}

nlohmann::json amax_json(const std::optional<train::AmaxRange>& range) {
  return range ? nlohmann::json{range->min, range->max} : nlohmann::json();
}

nlohmann::json float8_json(const std::optional<train::Float8Summary>& float8) {
  if (!float8) return nullptr;
  nlohmann::json layers = nlohmann::json::array();
  for (const auto& l : float8->layers) {
    layers.push_back({{"name", l.name},
                      {"in_features", l.in_features},
                      {"out_features", l.out_features},
                      {"float8_calls", l.float8_calls},
                      {"bf16_calls", l.bf16_calls},
                      {"bf16_why", optional_json(l.bf16_why)},
                      {"input_amax", amax_json(l.input_amax)},
                      {"weight_amax", amax_json(l.weight_amax)},
                      {"grad_output_amax", amax_json(l.grad_output_amax)}});
  }
  return {{"recipe", float8->recipe}, {"layers", layers}};
}

nlohmann::json trial_json(const TrialRecord& t) {
  nlohmann::json epochs = nlohmann::json::array();
  for (const auto& e : t.epochs) epochs.push_back(epoch_json(e));
  return {{"mode", amp::to_string(t.mode)},
          {"trial", t.trial},
          {"seed", t.seed},
          {"status", train::to_string(t.status)},
          {"stopped_at_step", optional_json(t.stopped_at_step)},
          {"detail", optional_json(t.detail)},
          {"warmup_steps_excluded", t.warmup_steps_excluded},
          {"master_weights_fp32", t.master_weights_fp32},
          {"initial_weights_checksum", t.initial_weights_checksum},
          {"data_order_checksum", t.data_order_checksum},
          {"tf32", t.tf32},
          {"cudnn_benchmark", t.cudnn_benchmark},
          {"channels_last", t.channels_last},
          {"memory", memory_json(t)},
          {"loss_scale", loss_scale_json(t.loss_scale_trace)},
          {"float8", float8_json(t.float8)},
          {"divergence", divergence_json(t.divergence)},
          {"optimizer_fallback", optional_json(t.optimizer_fallback)},
          {"epochs", epochs}};
}

nlohmann::json update_audit_json(const train::UpdateAudit& a) {
  return {{"mode", amp::to_string(a.mode)},
          {"steps", a.steps},
          {"moved", a.moved},
          {"lost", a.lost},
          {"wanted", a.wanted},
          {"taken", a.taken},
          {"lost_share", optional_json(a.lost_share())},
          {"lost_mass", optional_json(a.lost_mass())},
          {"diverged_at_step", optional_json(a.diverged_at_step)},
          {"failure", optional_json(a.failure)}};
}

nlohmann::json gate_json(const GateResult& g) {
  return {{"gate", config::to_string(g.gate)},
          {"mode", amp::to_string(g.mode)},
          {"threshold", g.threshold},
          {"value", optional_json(g.value)},
          {"passed", g.passed},
          {"message", g.message}};
}

nlohmann::json warning_json(const Warning& w) {
  return {{"kind", to_string(w.kind)},
          {"mode", w.mode ? nlohmann::json(std::string(amp::to_string(*w.mode))) : nlohmann::json(nullptr)},
          {"message", w.message},
          {"advice", w.advice}};
}

// What the model is: its type, state and, for an exported model, its archive.
nlohmann::json model_json(const RunReport& report) {
  const auto& archive = report.context.archive;
  return {{"type", report.context.model},
          {"parameters",
           {{"trainable", report.measured.model_parameters},
            {"frozen", report.measured.model_frozen_parameters}}},
          {"buffers", report.measured.model_buffers},
          {"constants", report.measured.model_constants},
          {"archive", archive ? nlohmann::json{{"fingerprint", archive->fingerprint},
                                               {"torch_version", archive->torch_version}}
                              : nlohmann::json()}};
}

// The recipe table's rows of the configured modes: what each mode is, for every reader of the report.
nlohmann::json modes_json(const RunContext& context) {
  nlohmann::json rows = nlohmann::json::array();
  for (auto mode : context.modes) rows.push_back(amp::recipe_json(amp::recipe_of(mode)));
  return rows;
}

}  // namespace

nlohmann::json to_json(const RunReport& report) {
  nlohmann::json trials = nlohmann::json::array();
  const auto& measured = report.measured;
  for (const auto& t : measured.trials) trials.push_back(trial_json(t));
  nlohmann::json fidelity_trials = nlohmann::json::array();
  for (const auto& t : measured.fidelity_trials) fidelity_trials.push_back(trial_json(t));
  nlohmann::json summary = nlohmann::json::array();
  for (const auto& s : report.summary) summary.push_back(summary_json(s));
  nlohmann::json audits = nlohmann::json::array();
  for (const auto& a : measured.update_audits) audits.push_back(update_audit_json(a));
  nlohmann::json warnings = nlohmann::json::array();
  for (const auto& w : report.warnings) warnings.push_back(warning_json(w));
  nlohmann::json gates = nlohmann::json::array();
  for (const auto& g : report.gates) gates.push_back(gate_json(g));
  return {{"schema_version", kSchemaVersion},
          {"complete", measured.complete},
          {"stopped_by", optional_json(measured.stopped_by)},
          {"setup_failure", optional_json(measured.setup_failure)},
          {"config", report.context.resolved_config},
          {"modes", modes_json(report.context)},
          {"environment", environment_json(report.context.environment)},
          {"train_flops_per_sample", optional_json(report.context.train_flops_per_sample)},
          {"model_parameters", measured.model_parameters},
          {"model", model_json(report)},
          {"data_on_device", measured.data_on_device},
          {"trials", trials},
          {"fidelity_trials", fidelity_trials},
          {"summary", summary},
          {"update_audits", audits},
          {"numerics", numerics_json(measured.numerics)},
          {"profiles", profile::profiles_json(measured.profiles)},
          {"warnings", warnings},
          {"gates", gates}};
}

}  // namespace ampbench::report
