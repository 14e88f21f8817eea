#include "profile/profile_json.h"

#include "profile/profile_view.h"

namespace ampbench::profile {
namespace {

template <typename T>
nlohmann::json nullable(const std::optional<T>& value) {
  return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
}

nlohmann::json classes_json(const ModeProfile& p, const ModeProfile* fp32) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& c : p.classes) {
    out.push_back({{"phase", to_string(c.phase)},
                   {"class", to_string(c.op_class)},
                   {"seconds", c.seconds},
                   {"share", nullable(step_share(p, c.seconds))},
                   {"ratio_vs_fp32", nullable(class_ratio(p, fp32, c))}});
  }
  return out;
}

nlohmann::json op_json(const ModeProfile& p, const OpTime& op, const ModeProfile* fp32) {
  return {{"name", op.name},
          {"phase", to_string(op.phase)},
          {"class", to_string(op.op_class)},
          {"dtypes", op.dtypes},
          {"shapes", op.shapes},
          {"calls", op.calls},
          {"seconds", op.seconds},
          {"share", nullable(step_share(p, op.seconds))},
          {"ratio_vs_fp32", nullable(op_ratio(op, fp32))},
          {"matmul_flops", op.matmul_flops}};
}

nlohmann::json precision_json(const ModeProfile& p) {
  const auto& a = p.precision;
  nlohmann::json fp32_ops = nlohmann::json::array();
  for (const auto& op : a.fp32_in_autocast) fp32_ops.push_back(op_json(p, op, nullptr));
  return {{"matmul_flops", a.matmul_flops},
          {"low_precision_flops", a.low_precision_flops},
          {"low_precision_flop_share", nullable(a.low_precision_flop_share)},
          {"float8_flops", a.float8_flops},
          {"float8_flop_share", nullable(a.float8_flop_share)},
          {"fp32_ops_in_autocast", fp32_ops},
          {"fp32_in_autocast_seconds", a.fp32_in_autocast_seconds},
          {"fp32_in_autocast_share", nullable(step_share(p, a.fp32_in_autocast_seconds))},
          {"cast_seconds", a.cast_seconds},
          {"cast_share", nullable(step_share(p, a.cast_seconds))},
          {"cast_bytes", a.cast_bytes}};
}

nlohmann::json profile_json(const ModeProfile& p, const ModeProfile* fp32) {
  nlohmann::json top = nlohmann::json::array();
  for (const auto& op : p.top_ops) top.push_back(op_json(p, op, fp32));
  return {{"steps", p.steps},
          {"warmup_steps", p.warmup_steps},
          {"time_base", p.device_time ? "device" : "host"},
          {"step_seconds", p.step_seconds},
          {"op_seconds", p.op_seconds},
          {"overhead_seconds", p.overhead_seconds},
          {"overhead_share", nullable(step_share(p, p.overhead_seconds))},
          {"trace_file", p.trace_file.empty() ? nlohmann::json(nullptr) : nlohmann::json(p.trace_file)},
          {"classes", classes_json(p, fp32)},
          {"top_ops", top},
          {"precision", precision_json(p)},
          {"cpu", p.cpu ? measure::cpu_usage_json(*p.cpu) : nlohmann::json()}};
}

}  // namespace

nlohmann::json profiles_json(const std::vector<ProfileRecord>& profiles) {
  const auto* fp32 = fp32_profile(profiles);
  nlohmann::json out = nlohmann::json::array();
  for (const auto& record : profiles) {
    nlohmann::json entry = {{"mode", amp::to_string(record.mode)},
                            {"status", record.failure   ? "failed"
                                       : record.stopped ? "stopped"
                                                        : "ok"},
                            {"detail", nullable(record.failure ? record.failure : record.stopped)},
                            {"pass_seconds", record.wall_seconds}};
    if (record.profile) entry.update(profile_json(*record.profile, fp32));
    out.push_back(std::move(entry));
  }
  return out;
}

}  // namespace ampbench::profile
