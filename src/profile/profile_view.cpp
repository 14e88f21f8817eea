#include "profile/profile_view.h"

namespace ampbench::profile {
namespace {

std::optional<double> ratio(double value, double base) {
  if (base <= 0) return std::nullopt;
  return value / base;
}

}  // namespace

const ModeProfile* fp32_profile(const std::vector<ProfileRecord>& profiles) {
  for (const auto& p : profiles) {
    if (p.mode == amp::PrecisionMode::fp32 && p.profile) return &*p.profile;
  }
  return nullptr;
}

double class_seconds(const ModeProfile& p, OpClass op_class) {
  double seconds = 0;
  for (const auto& c : p.classes) {
    if (c.op_class == op_class) seconds += c.seconds;
  }
  return seconds;
}

std::optional<double> class_ratio(const ModeProfile& p, const ModeProfile* fp32, const ClassTime& time) {
  if (!fp32 || &p == fp32) return std::nullopt;
  for (const auto& c : fp32->classes) {
    if (c.phase == time.phase && c.op_class == time.op_class) return ratio(time.seconds, c.seconds);
  }
  return std::nullopt;
}

std::optional<double> class_ratio(const ModeProfile& p, const ModeProfile* fp32, OpClass op_class) {
  if (!fp32 || &p == fp32) return std::nullopt;
  return ratio(class_seconds(p, op_class), class_seconds(*fp32, op_class));
}

std::optional<double> fp32_op_seconds(const OpTime& op, const ModeProfile* fp32) {
  const auto in_fp32 = [&] {
    return &op >= fp32->top_ops.data() && &op < fp32->top_ops.data() + fp32->top_ops.size();
  };
  if (!fp32 || in_fp32()) return std::nullopt;
  double base = 0;
  for (const auto& o : fp32->top_ops) {
    if (o.name == op.name && o.phase == op.phase && o.shapes == op.shapes) base += o.seconds;
  }
  return base;
}

std::optional<double> op_ratio(const OpTime& op, const ModeProfile* fp32) {
  const auto base = fp32_op_seconds(op, fp32);
  return base ? ratio(op.seconds, *base) : std::nullopt;
}

std::optional<double> step_share(const ModeProfile& p, double seconds) {
  return ratio(seconds, p.step_seconds);
}

}  // namespace ampbench::profile
