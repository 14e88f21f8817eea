#include "report/json_report.h"

namespace ampbench::report {
namespace {

template <typename T>
nlohmann::json optional_json(const std::optional<T>& value) {
  return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
}

nlohmann::json environment_json(const measure::Environment& env) {
  return {{"ampbench_version", env.ampbench_version},
          {"git_commit", env.git_commit},
          {"build_type", env.build_type},
          {"compiler", env.compiler},
          {"libtorch_version", env.libtorch_version},
          {"cuda_version", optional_json(env.cuda_version)},
          {"cudnn_version", optional_json(env.cudnn_version)},
          {"device", env.device},
          {"device_name", env.device_name},
          {"cpu_model", env.cpu_model},
          {"cpu_cores", env.cpu_cores},
          {"torch_threads", env.torch_threads},
          {"hostname", env.hostname},
          {"timestamp_utc", env.timestamp_utc}};
}

nlohmann::json epoch_json(const EpochRecord& e) {
  return {{"epoch", e.epoch},
          {"seconds", e.seconds},
          {"timed_steps", e.timed_steps},
          {"timed_samples", e.timed_samples},
          {"samples_per_second", e.samples_per_second},
          {"train_loss", e.train_loss},
          {"val_loss", e.val_loss},
          {"val_accuracy", e.val_accuracy},
          {"loss_scale", optional_json(e.loss_scale)},
          {"skipped_steps", optional_json(e.skipped_steps)}};
}

nlohmann::json mode_json(const ModeRecord& m) {
  nlohmann::json epochs = nlohmann::json::array();
  for (const auto& e : m.epochs) epochs.push_back(epoch_json(e));
  return {{"mode", amp::to_string(m.mode)},
          {"status", m.status},
          {"warmup_steps_excluded", m.warmup_steps_excluded},
          {"master_weights_fp32", m.master_weights_fp32},
          {"initial_weights_checksum", m.initial_weights_checksum},
          {"data_order_checksum", m.data_order_checksum},
          {"memory",
           {{"probe", m.memory.probe},
            {"baseline_bytes", m.memory.baseline_bytes},
            {"peak_bytes", m.memory.peak_bytes},
            {"peak_reserved_bytes", optional_json(m.memory.peak_reserved_bytes)}}},
          {"epochs", epochs}};
}

nlohmann::json summary_json(const ModeSummary& s) {
  return {{"mode", amp::to_string(s.mode)},
          {"samples_per_second", s.samples_per_second},
          {"epochs_compared", s.epochs_compared},
          {"speedup_vs_fp32", optional_json(s.speedup_vs_fp32)},
          {"memory_ratio_vs_fp32", optional_json(s.memory_ratio_vs_fp32)},
          {"val_loss_delta_vs_fp32", optional_json(s.val_loss_delta_vs_fp32)}};
}

}  // namespace

nlohmann::json to_json(const RunReport& report) {
  nlohmann::json modes = nlohmann::json::array();
  for (const auto& m : report.modes) modes.push_back(mode_json(m));
  nlohmann::json summary = nlohmann::json::array();
  for (const auto& s : report.summary) summary.push_back(summary_json(s));
  return {{"schema_version", kSchemaVersion},
          {"complete", report.complete},
          {"config", report.config},
          {"environment", environment_json(report.environment)},
          {"modes", modes},
          {"summary", summary}};
}

}  // namespace ampbench::report
