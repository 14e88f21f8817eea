#pragma once

#include <cstdint>
#include <vector>

#include <torch/torch.h>

#include "amp/grad_scaler.h"
#include "report/report.h"

namespace ampbench::train {

// Follows the GradScaler through a trial without host syncs in the loop: after each optimizer step,
// record() copies the scale and found_inf into per-epoch device buffers (two tiny kernels); after the
// epoch's timed region, read_epoch() reads them once and extends the trace (skipped steps, changes
// of scale, the lowest scale, the longest run of back-offs).
class LossScaleRecorder {
 public:
  LossScaleRecorder(const torch::Device& device, int64_t steps_per_epoch, double init_scale);

  // `step` is 0-based within the epoch; call it after GradScaler::update().
  void record(int64_t step, const amp::GradScaler& scaler);
  // Reads the epoch's `steps_run` first steps (those recorded are the optimizer steps among them).
  void read_epoch(int64_t epoch, int64_t steps_run);
  const report::LossScaleTrace& trace() const { return trace_; }

 private:
  int64_t steps_per_epoch_;
  torch::Tensor scales_;     // fp32 [steps]: the scale after each optimizer step
  torch::Tensor found_inf_;  // fp32 [steps]: 1 where that step was skipped; NaN where no step was taken
  // One view per step of each, made up front (about 0.5 KB of host memory each): cutting it in the loop
  // (select) would cost a dispatch per step.
  std::vector<torch::Tensor> scale_slots_, found_inf_slots_;
  double last_scale_;
  int64_t backoff_run_ = 0;
  report::LossScaleTrace trace_;
};

}  // namespace ampbench::train
