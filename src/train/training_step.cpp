#include "train/training_step.h"

#include "amp/autocast_scope.h"
#include "amp/weight_format.h"
#include "numerics/phase.h"
#include "optim/grad_clipping.h"
#include "train/classification_loss.h"
#include "train/low_bit_settings.h"

namespace ampbench::train {
namespace {

// A batch of host-resident data, gathered into page-locked memory when it goes to a GPU: copied from
// pageable memory, the host would wait for the copy, a hidden sync in the timed loop. LibTorch's host
// allocator keeps the buffer from reuse until the copy is done.
torch::Tensor host_batch(const torch::Tensor& source, const torch::Tensor& index,
                         const torch::Device& device) {
  auto sizes = source.sizes().vec();
  sizes[0] = index.numel();
  auto batch = torch::empty(sizes, source.options().pinned_memory(device.is_cuda()));
  at::index_select_out(batch, source, 0, index);
  return batch.to(device, /*non_blocking=*/true);
}

}  // namespace

TrainingStep::TrainingStep(const TrainerOptions& options, amp::PrecisionMode mode, models::Network& model,
                           const data::Dataset& dataset, const torch::Device& device)
    : options_(options),
      mode_(mode),
      model_(model),
      dataset_(dataset),
      device_(device),
      steps_(dataset.train_size() / options.train.batch_size),
      optimizer_(optim::make_optimizer(
          options.train.optimizer, model.parameters(),
          optim::RoundingOptions().rounding(amp::recipe_of(mode).update_rounding).seed(options.seed))),
      float8_layers_(options.seed) {
  if (amp::recipe_of(mode).gradient_guard == amp::GradientGuard::grad_scaler)
    scaler_.emplace(options.grad_scaler, device);
  optimizer_->check_fused_kernel_on_bf16();
  if (amp::recipe_of(mode).linear_recipe) {
    const auto first = dataset.train_inputs.narrow(0, 0, options.train.batch_size).to(device);
    float8_settings_ = low_bit_settings(mode, options, model,
                                        amp::cast_inputs(first, mode).contiguous(options.memory_format()));
  }
}

std::pair<torch::Tensor, torch::Tensor> TrainingStep::batch(const torch::Tensor& order, int64_t step) const {
  const int64_t size = options_.train.batch_size;
  auto index = order.narrow(0, step * size, size);
  // Host-resident data (too large for the device) needs one copy per batch; staged data is there
  // already, and skipping the no-op .to() saves a dispatch per step.
  if (dataset_.staged)
    return {dataset_.train_inputs.index_select(0, index), dataset_.train_labels.index_select(0, index)};
  return {host_batch(dataset_.train_inputs, index, device_),
          host_batch(dataset_.train_labels, index, device_)};
}

torch::Tensor TrainingStep::loss(const torch::Tensor& order, int64_t step) {
  numerics::mark_phase(numerics::Phase::batch);
  auto [inputs, labels] = batch(order, step);
  inputs = amp::cast_inputs(inputs, mode_).contiguous(options_.memory_format());
  amp::AutocastScope autocast(device_.type(), amp::recipe_of(mode_).autocast);
  auto float8 = float8_settings_;
  if (float8) float8->scale_multiplier = float8_scale_factor_;
  amp::Float8Scope float8_scope(float8, &float8_layers_);
  numerics::mark_phase(numerics::Phase::forward);
  auto logits = model_.forward(inputs);
  numerics::mark_phase(numerics::Phase::loss);
  return classification_loss(logits, labels);
}

void TrainingStep::backward(const torch::Tensor& loss) {
  const int64_t accumulation = options_.train.accumulation_steps;
  // Without accumulation, dividing by 1 would cost a kernel forward and one backward for nothing.
  auto scaled = accumulation > 1 ? loss / static_cast<double>(accumulation) : loss;
  numerics::mark_phase(numerics::Phase::backward);
  (scaler_ ? scaler_->scale(scaled) : scaled).backward();
}

bool TrainingStep::step_on_boundary(int64_t step) {
  const bool boundary = (step + 1) % options_.train.accumulation_steps == 0 || step + 1 == steps_;
  if (boundary) optimizer_step();
  return boundary;
}

void TrainingStep::optimizer_step() {
  const auto& clip = options_.train.clip_grad_norm;
  if (!scaler_) {
    numerics::mark_phase(numerics::Phase::optimizer);
    if (clip) optim::clip_grad_norm_(optimizer_->grads(), *clip);
    optimizer_->step();
    return;
  }
  // Unscaled apart from the step (which would otherwise unscale itself), so that a replay under the
  // observer can tell the two phases apart; the work is the same.
  numerics::mark_phase(numerics::Phase::unscale);
  scaler_->unscale_(*optimizer_);
  numerics::mark_phase(numerics::Phase::optimizer);
  if (clip) optim::clip_grad_norm_(optimizer_->grads(), *clip);
  scaler_->step(*optimizer_);
  scaler_->update();
}

}  // namespace ampbench::train
