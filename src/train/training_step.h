#pragma once

#include <cstdint>
#include <memory>
#include <optional>

#include <torch/torch.h>

#include "amp/float8_linear.h"
#include "amp/grad_scaler.h"
#include "amp/precision_mode.h"
#include "data/dataset.h"
#include "models/network.h"
#include "optim/optimizer.h"
#include "train/trainer_options.h"

namespace ampbench::train {

// The work of one training step in one precision mode, shared by the Trainer and the overhead
// benchmark's bare loop so that the two cannot drift: cut the batch, forward + loss under autocast
// (fp16/bf16; the fp8 modes also open a Float8Scope there), backward outside it (through the GradScaler for
// fp16), and on a gradient-accumulation boundary clip and step the optimizer (fp16: unscale_ before clipping,
// step skipped on inf/NaN, update). Nothing here syncs with the host.
class TrainingStep {
 public:
  TrainingStep(const TrainerOptions& options, amp::PrecisionMode mode, models::Network& model,
               const data::Dataset& dataset, const torch::Device& device);

  // Batches in an epoch: the last partial batch is dropped, so every step has the same shapes.
  int64_t steps_per_epoch() const { return steps_; }
  // Batch `step` of an epoch's order on the device: its inputs as the data holds them (before the mode's
  // cast) and its labels.
  std::pair<torch::Tensor, torch::Tensor> batch(const torch::Tensor& order, int64_t step) const;
  // The loss of batch `step` of an epoch's order (on the device the data lives on), computed under
  // autocast in fp32 from the logits.
  torch::Tensor loss(const torch::Tensor& order, int64_t step);
  // Backward of `loss`; on an accumulation boundary also the optimizer step. True when it stepped: the
  // gradients are then spent and the caller drops them with zero_grad().
  bool backward_and_step(const torch::Tensor& loss, int64_t step) {
    backward(loss);
    return step_on_boundary(step);
  }
  // The two halves of backward_and_step, for the profiled pass, which marks them apart.
  void backward(const torch::Tensor& loss);
  bool step_on_boundary(int64_t step);
  void zero_grad() { optimizer_->zero_grad(); }
  // The next optimizer step counts what rounding did to its bf16 weights (an untimed audit's step only).
  void count_next_update(optim::UpdateCount& count) { optimizer_->count_next_step(count); }
  // The fused kernel that left bf16 weights unchanged in its check, which this step's optimizer therefore
  // steps through fp32 working copies ("fused SGD"); empty where the kernel works or no weight is bf16.
  std::optional<std::string> optimizer_fallback() const {
    if (optimizer_->fused_kernel_updates_bf16()) return std::nullopt;
    return std::string(optimizer_->kernel_name());
  }
  // fp16's GradScaler; nullptr in the other modes.
  const amp::GradScaler* scaler() const { return scaler_ ? &*scaler_ : nullptr; }
  // The float8 and float4 modes: what each linear layer did in the steps so far, and the settings their
  // linear layers run under (the layers the filter keeps in bf16 among them); nullopt in the other modes.
  const amp::Float8Layers& float8_layers() const { return float8_layers_; }
  const std::optional<amp::Float8Settings>& float8_settings() const { return float8_settings_; }
  // A test's planted broken scale: every later step's float8 scales are multiplied by `factor`.
  void plant_float8_scale_factor(double factor) { float8_scale_factor_ = factor; }

 private:
  void optimizer_step();

  const TrainerOptions& options_;
  amp::PrecisionMode mode_;
  models::Network& model_;
  const data::Dataset& dataset_;
  torch::Device device_;
  int64_t steps_;
  std::unique_ptr<optim::Optimizer> optimizer_;
  std::optional<amp::GradScaler> scaler_;
  amp::Float8Layers float8_layers_;
  std::optional<amp::Float8Settings> float8_settings_;
  double float8_scale_factor_ = 1.0;
};

}  // namespace ampbench::train
