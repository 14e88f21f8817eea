#pragma once

#include <cstdint>

#include <torch/torch.h>

#include "amp/grad_scaler.h"
#include "train/per_step_buffer.h"
#include "train/trial_record.h"

namespace ampbench::train {

// Follows the GradScaler through a trial without host syncs in the loop: after each optimizer step,
// record() copies the scale and found_inf into that step's row of a per-epoch buffer on the device;
// after the epoch's timed region, read_epoch() reads it once and extends the trace (skipped steps,
// changes of scale, the lowest scale, the longest run of back-offs).
class LossScaleRecorder {
 public:
  LossScaleRecorder(const torch::Device& device, int64_t steps_per_epoch, double init_scale);

  // `step` is 0-based within the epoch; call it after GradScaler::update().
  void record(int64_t step, const amp::GradScaler& scaler);
  // Reads the epoch's `steps_run` first steps (those recorded are the optimizer steps among them).
  void read_epoch(int64_t epoch, int64_t steps_run);
  const LossScaleTrace& trace() const { return trace_; }

 private:
  int64_t steps_per_epoch_;
  // [steps, 2]: per step, the scale after the optimizer step and found_inf (1 where the step was skipped;
  // NaN where no optimizer step was taken).
  PerStepBuffer scale_and_found_inf_;
  double last_scale_;
  int64_t backoff_run_ = 0;
  LossScaleTrace trace_;
};

}  // namespace ampbench::train
