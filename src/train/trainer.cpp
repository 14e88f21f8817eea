#include "train/trainer.h"

#include <chrono>
#include <cmath>
#include <csignal>
#include <limits>
#include <memory>

#include <spdlog/spdlog.h>

#include "amp/autocast_scope.h"
#include "amp/grad_scaler.h"
#include "data/batch_order.h"
#include "measure/device.h"
#include "measure/step_timer.h"
#include "optim/grad_clipping.h"
#include "optim/optimizer.h"
#include "train/classification_loss.h"
#include "train/loss_scale_recorder.h"
#include "train/model_state.h"
#include "train/per_step_buffer.h"
#include "train/stop_request.h"

namespace ampbench::train {
std::unique_ptr<optim::Optimizer> make_optimizer(const config::OptimizerConfig& c,
                                                 std::vector<torch::Tensor> params) {
  if (c.kind == config::OptimizerKind::adamw) {
    return std::make_unique<optim::FusedAdamW>(
        std::move(params), optim::AdamWOptions{c.lr, c.beta1, c.beta2, c.eps, c.weight_decay});
  }
  return std::make_unique<optim::FusedSgd>(std::move(params),
                                           optim::SgdOptions{c.lr, c.momentum, c.weight_decay});
}

namespace {

// Plants the fault that a test asked for at this step.
torch::Tensor inject(const FaultInjection& fault, const torch::Tensor& loss, int64_t step) {
  switch (fault.kind) {
    case FaultInjection::Kind::nan:
      return loss * std::numeric_limits<double>::quiet_NaN();
    case FaultInjection::Kind::oom:
      TORCH_CHECK_WITH(OutOfMemoryError, false, "injected out-of-memory error at step ", step);
    case FaultInjection::Kind::error:
      TORCH_CHECK(false, "injected error at step ", step);
    case FaultInjection::Kind::sigint:
      std::raise(SIGINT);
      break;
    case FaultInjection::Kind::sigterm:
      std::raise(SIGTERM);
      break;
    case FaultInjection::Kind::sigstop:
      std::raise(SIGSTOP);
      break;
  }
  return loss;
}

double seconds_between(std::chrono::steady_clock::time_point a, std::chrono::steady_clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

}  // namespace

Trainer::Trainer(const config::ExperimentConfig& config, const data::Dataset& dataset,
                 const torch::Device& device, std::optional<FaultInjection> fault)
    : config_(config), dataset_(dataset), device_(device), fault_(fault) {}

void Trainer::run(amp::PrecisionMode mode, models::Network& model, report::TrialRecord& record,
                  measure::MemoryProbe* probe, Progress* progress) const {
  const auto& train = config_.train;
  const int64_t steps =
      dataset_.train_size() / train.batch_size;  // the last partial batch is dropped: equal shapes
  const auto dtype = amp::autocast_dtype(mode);
  const auto device_type = device_.type();

  auto optimizer = make_optimizer(train.optimizer, model.parameters());
  std::optional<amp::GradScaler> scaler;
  std::optional<LossScaleRecorder> scale_recorder;
  if (amp::needs_grad_scaler(mode)) {
    scaler.emplace(config_.precision.grad_scaler, device_);
    scale_recorder.emplace(device_, steps, config_.precision.grad_scaler.init_scale);
  }
  const auto memory_format =
      train.channels_last ? at::MemoryFormat::ChannelsLast : at::MemoryFormat::Contiguous;
  // Host-resident data (too large for the device) needs one copy per batch; staged data is there
  // already, and skipping the no-op .to() saves a dispatch per step.
  auto to_device = [&](const torch::Tensor& batch) {
    return dataset_.staged ? batch : batch.to(device_, true);
  };

  // Every step's loss, kept on the device (no reduction in the loop): the epoch's training loss and the
  // divergence check (NaN or inf in the loss, unlike fp16's skipped steps, whose loss is finite and whose
  // overflow is in the scaled gradients) are read from it after the timed region.
  PerStepBuffer step_losses(device_, steps, {}, 0.0f);
  std::vector<torch::Tensor> orders;
  record.warmup_steps_excluded = train.warmup_steps;
  auto step_timer = measure::make_step_timer(device_, steps);
  bool static_memory_marked = false;

  for (int64_t epoch = 1; epoch <= train.epochs; ++epoch) {
    auto order_cpu = data::epoch_order(config_.seed, epoch, dataset_.train_size());
    orders.push_back(order_cpu);
    // Batches are cut where the data lives: on the device, or (data too large for it) in host memory.
    auto order = dataset_.staged ? order_cpu.to(device_) : order_cpu;
    model.train();
    optimizer->zero_grad();
    const int64_t first_timed_step = epoch == 1 ? train.warmup_steps : 0;
    if (progress) {
      progress->epoch.store(epoch, std::memory_order_relaxed);
      progress->epochs.store(train.epochs, std::memory_order_relaxed);
      progress->steps.store(steps, std::memory_order_relaxed);
    }

    auto train_step = [&](int64_t step) {
      auto index = order.narrow(0, step * train.batch_size, train.batch_size);
      auto inputs = to_device(dataset_.train_inputs.index_select(0, index)).contiguous(memory_format);
      auto labels = to_device(dataset_.train_labels.index_select(0, index));
      torch::Tensor loss;
      {
        amp::AutocastScope autocast(device_type, dtype);
        loss = classification_loss(model.forward(inputs), labels);
      }
      const int64_t global_step = (epoch - 1) * steps + step + 1;
      if (fault_ && fault_->mode == mode && fault_->step == global_step &&
          (fault_->trial == 0 || fault_->trial == record.trial))
        loss = inject(*fault_, loss, global_step);
      step_losses.write(step, loss);
      // Without accumulation, dividing by 1 would cost a kernel forward and one backward for nothing.
      auto scaled =
          train.accumulation_steps > 1 ? loss / static_cast<double>(train.accumulation_steps) : loss;
      (scaler ? scaler->scale(scaled) : scaled).backward();

      if (progress) progress->step.store(step + 1, std::memory_order_relaxed);
      bool boundary = (step + 1) % train.accumulation_steps == 0 || step + 1 == steps;
      if (!boundary) return;
      if (scaler) {
        if (train.clip_grad_norm) {
          scaler->unscale_(*optimizer);
          optim::clip_grad_norm_(optimizer->grads(), *train.clip_grad_norm);
        }
        scaler->step(*optimizer);
        scaler->update();
        scale_recorder->record(step, *scaler);
      } else {
        if (train.clip_grad_norm) optim::clip_grad_norm_(optimizer->grads(), *train.clip_grad_norm);
        optimizer->step();
      }
      if (probe && !static_memory_marked) {
        // Weights, gradients and optimizer state all exist now; activations have been freed.
        probe->mark_static();
        static_memory_marked = true;
      }
      optimizer->zero_grad();
    };

    // A stop request ends the epoch at the next step boundary; the partial epoch is not reported.
    bool stopped = false;
    for (int64_t step = 0; step < first_timed_step && !(stopped = StopRequest::requested()); ++step) {
      train_step(step);
    }
    measure::synchronize(device_);
    auto start = std::chrono::steady_clock::now();
    step_timer->start();
    for (int64_t step = first_timed_step; step < steps && !stopped; ++step) {
      if ((stopped = StopRequest::requested())) break;
      train_step(step);
      step_timer->step_done();  // a clock read or an event record: never a sync
    }
    measure::synchronize(device_);
    auto stop = std::chrono::steady_clock::now();

    // The timed region is closed: now read what the device accumulated.
    if (stopped) {
      record.status = "interrupted";
      record.detail = "stopped by signal " + std::to_string(StopRequest::signal_number()) + " during epoch " +
                      std::to_string(epoch) + ", which is not reported";
      break;
    }
    if (scale_recorder) {
      scale_recorder->read_epoch(epoch, steps);
      record.loss_scale_trace = scale_recorder->trace();
    }
    auto losses = step_losses.values().to(torch::kCPU, torch::kFloat64);
    auto bad_steps = losses.isfinite().logical_not().nonzero();
    if (bad_steps.size(0) > 0) {
      record.status = "diverged";
      record.stopped_at_step = (epoch - 1) * steps + bad_steps[0][0].item<int64_t>() + 1;
      record.detail = "the training loss became NaN or inf at step " +
                      std::to_string(*record.stopped_at_step) + " (epoch " + std::to_string(epoch) +
                      ", which is not reported)";
      spdlog::warn("{}: {}", amp::to_string(mode), *record.detail);
      break;
    }
    report::EpochRecord e;
    e.epoch = epoch;
    e.seconds = seconds_between(start, stop);
    e.timed_steps = steps - first_timed_step;
    e.timed_samples = e.timed_steps * train.batch_size;
    e.samples_per_second = e.seconds > 0 ? static_cast<double>(e.timed_samples) / e.seconds : 0.0;
    // Warm-up steps stay out of every figure, the training loss included.
    e.train_loss = losses.narrow(0, first_timed_step, e.timed_steps).mean().item<double>();
    if (progress) progress->last_train_loss.store(e.train_loss, std::memory_order_relaxed);
    e.step_seconds = step_timer->read();
    if (scaler) {
      e.loss_scale = scaler->scale_value();
      // The trace already holds every skipped step: no second count on the device.
      e.skipped_steps = static_cast<int64_t>(record.loss_scale_trace->skipped_steps.size());
    }
    auto evaluation = evaluate(mode, model);
    e.val_loss = evaluation.loss;
    e.val_accuracy = evaluation.accuracy;
    if (config_.data.is_language_model()) e.val_perplexity = std::exp(e.val_loss);
    record.epochs.push_back(e);
    spdlog::info(
        "{} epoch {}/{}: {:.3f} s, {:.1f} samples/s, train loss {:.4f}, val loss {:.4f}, val acc {:.3f}",
        amp::to_string(mode), epoch, train.epochs, e.seconds, e.samples_per_second, e.train_loss, e.val_loss,
        e.val_accuracy);
  }
  record.master_weights_fp32 = parameters_are_fp32(model);
  record.data_order_checksum = checksum(orders);
}

Trainer::Evaluation Trainer::evaluate(amp::PrecisionMode mode, models::Network& model) const {
  torch::NoGradGuard no_grad;
  const auto memory_format =
      config_.train.channels_last ? at::MemoryFormat::ChannelsLast : at::MemoryFormat::Contiguous;
  model.eval();
  auto on_device = torch::TensorOptions().device(device_);
  auto loss_sum = torch::zeros({}, on_device.dtype(torch::kFloat64));
  auto correct = torch::zeros({}, on_device.dtype(torch::kInt64));
  const int64_t n = dataset_.val_size();
  const int64_t predictions = dataset_.val_labels.numel();  // samples, or tokens for a language model
  for (int64_t begin = 0; begin < n; begin += config_.train.batch_size) {
    int64_t count = std::min(config_.train.batch_size, n - begin);
    auto inputs = dataset_.val_inputs.narrow(0, begin, count).to(device_, true).contiguous(memory_format);
    auto labels = dataset_.val_labels.narrow(0, begin, count).to(device_, true);
    torch::Tensor logits;
    {
      amp::AutocastScope autocast(device_.type(), amp::autocast_dtype(mode));
      logits = model.forward(inputs);
      loss_sum.add_(classification_loss(logits, labels, /*sum=*/true));
    }
    correct.add_(logits.argmax(-1).eq(labels).sum());
  }
  model.train();
  return {loss_sum.item<double>() / static_cast<double>(predictions),
          static_cast<double>(correct.item<int64_t>()) / static_cast<double>(predictions)};
}

}  // namespace ampbench::train
