#include "train/loss_scale_recorder.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ampbench::train {

LossScaleRecorder::LossScaleRecorder(const torch::Device& device, int64_t steps_per_epoch, double init_scale)
    : steps_per_epoch_(steps_per_epoch), last_scale_(init_scale) {
  auto options = torch::TensorOptions().device(device).dtype(torch::kFloat32);
  scales_ = torch::zeros({steps_per_epoch}, options);
  found_inf_ = torch::full({steps_per_epoch}, std::numeric_limits<float>::quiet_NaN(), options);
  scale_slots_ = scales_.unbind(0);
  found_inf_slots_ = found_inf_.unbind(0);
  trace_.min_scale = init_scale;
}

void LossScaleRecorder::record(int64_t step, const amp::GradScaler& scaler) {
  scale_slots_[step].copy_(scaler.scale_tensor());
  found_inf_slots_[step].copy_(scaler.found_inf());
}

void LossScaleRecorder::read_epoch(int64_t epoch, int64_t steps_run) {
  auto scales = scales_.cpu();
  auto found_inf = found_inf_.cpu();
  const auto* scale = scales.data_ptr<float>();
  const auto* inf = found_inf.data_ptr<float>();
  for (int64_t i = 0; i < steps_run; ++i) {
    if (std::isnan(inf[i])) continue;  // a gradient-accumulation step: no optimizer step
    const int64_t step = (epoch - 1) * steps_per_epoch_ + i + 1;
    if (inf[i] != 0.0f) {
      trace_.skipped_steps.push_back(step);
      trace_.longest_backoff_run = std::max(trace_.longest_backoff_run, ++backoff_run_);
    } else {
      backoff_run_ = 0;
    }
    if (scale[i] != last_scale_) trace_.changes.emplace_back(step, scale[i]);
    last_scale_ = scale[i];
    trace_.min_scale = std::min(trace_.min_scale, last_scale_);
  }
  found_inf_.fill_(std::numeric_limits<float>::quiet_NaN());
}

}  // namespace ampbench::train
