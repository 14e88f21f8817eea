#include "train/loss_scale_recorder.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ampbench::train {

LossScaleRecorder::LossScaleRecorder(const torch::Device& device, int64_t steps_per_epoch, double init_scale)
    : steps_per_epoch_(steps_per_epoch),
      scale_and_found_inf_(device, steps_per_epoch, {2}, std::numeric_limits<float>::quiet_NaN()),
      last_scale_(init_scale) {
  trace_.min_scale = init_scale;
}

void LossScaleRecorder::record(int64_t step, const amp::GradScaler& scaler) {
  scale_and_found_inf_.write(step, scaler.scale_and_found_inf());
}

void LossScaleRecorder::read_epoch(int64_t epoch, int64_t steps_run) {
  auto rows = scale_and_found_inf_.values().cpu();  // on the CPU the buffer itself, refilled only below
  const auto* row = rows.data_ptr<float>();
  for (int64_t i = 0; i < steps_run; ++i, row += 2) {
    const float scale = row[0], inf = row[1];
    if (std::isnan(inf)) continue;  // a gradient-accumulation step: no optimizer step
    ++trace_.optimizer_steps;
    const int64_t step = (epoch - 1) * steps_per_epoch_ + i + 1;
    if (inf != 0.0f) {
      trace_.skipped_steps.push_back(step);
      trace_.longest_backoff_run = std::max(trace_.longest_backoff_run, ++backoff_run_);
    } else {
      backoff_run_ = 0;
    }
    if (scale != last_scale_) trace_.changes.emplace_back(step, scale);
    last_scale_ = scale;
    trace_.min_scale = std::min(trace_.min_scale, last_scale_);
  }
  scale_and_found_inf_.fill(std::numeric_limits<float>::quiet_NaN());
}

}  // namespace ampbench::train
