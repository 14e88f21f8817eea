#pragma once

#include <cstdint>

#include <torch/torch.h>

namespace ampbench::train {

// An epoch's per-step values (a loss, the loss scale), kept on the training device: the timed loop writes
// one row per step, without a host sync, an allocation or a view cut per step, and the values are read once
// after the timed region.
class PerStepBuffer {
 public:
  // fp32 [steps, row_shape...], every element `fill`; at least one step.
  PerStepBuffer(const torch::Device& device, int64_t steps, at::IntArrayRef row_shape, float fill);
  // A copy would share the moving row view: one buffer, one writer.
  PerStepBuffer(const PerStepBuffer&) = delete;
  PerStepBuffer& operator=(const PerStepBuffer&) = delete;

  // Copies `value`, of the row's shape, into row `step`. Throws c10::Error for a step out of range or a
  // value of another shape.
  void write(int64_t step, const torch::Tensor& value);
  void fill(float value) { values_.fill_(value); }
  // Read it; writing goes through write() and fill(), which keep its storage where the rows point.
  const torch::Tensor& values() const { return values_; }

 private:
  torch::Tensor values_;
  int64_t steps_;
  // On the CPU a kernel has finished when it returns, so an fp32 value lies in host memory already: a plain
  // store does what a copy would, without its dispatch (about 1 us).
  float* host_rows_ = nullptr;
  // Elsewhere, one view of a row, moved from row to row by its storage offset: a select() per step would
  // cost a dispatch, and a view per row made up front about 0.5 KB of host memory each.
  torch::Tensor row_view_;
};

}  // namespace ampbench::train
