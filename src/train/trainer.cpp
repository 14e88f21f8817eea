#include "train/trainer.h"

#include <chrono>
#include <cmath>
#include <csignal>
#include <memory>
#include <stdexcept>
#include <thread>

#include <spdlog/spdlog.h>

#include "data/batch_order.h"
#include "measure/device.h"
#include "measure/host_sync_check.h"
#include "measure/step_timer.h"
#include "numerics/node_scope.h"
#include "profile/kineto_capture.h"
#include "train/evaluation.h"
#include "train/float8_summary.h"
#include "train/loss_scale_recorder.h"
#include "train/model_state.h"
#include "train/per_step_buffer.h"
#include "train/planted_faults.h"
#include "train/stop_request.h"
#include "train/training_step.h"
#include "util/fnv1a.h"

namespace ampbench::train {
namespace {

// Plants the fault that a test asked for at this step: those that stop or slow a trial here, the numeric
// ones through planted_faults.h.
torch::Tensor inject(const FaultInjection& fault, const torch::Tensor& loss, int64_t step,
                     models::Network& model) {
  switch (fault.kind) {
    case FaultInjection::Kind::oom:
      TORCH_CHECK_WITH(OutOfMemoryError, false, "injected out-of-memory error at step ", step);
    case FaultInjection::Kind::error:
      TORCH_CHECK(false, "injected error at step ", step);
    case FaultInjection::Kind::exception:
      throw std::runtime_error("injected exception at step " + std::to_string(step));
    case FaultInjection::Kind::stop_signal:
      std::raise(fault.signal);
      break;
    case FaultInjection::Kind::sigstop:
      std::raise(SIGSTOP);
      break;
    case FaultInjection::Kind::slow:
      std::this_thread::sleep_for(std::chrono::duration<double>(kSlowStepSeconds));
      break;
    default:
      return plant_in_loss(fault, loss, model);
  }
  return loss;
}

double seconds_between(std::chrono::steady_clock::time_point a, std::chrono::steady_clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

// One trial's epochs: the state its timed loops write into, and what is read after each of them.
class TrialRun {
 public:
  TrialRun(const TrainerOptions& options, const data::Dataset& dataset, const torch::Device& device,
           const std::optional<FaultInjection>& fault, amp::PrecisionMode mode, models::Network& model,
           TrialRecord& record, measure::MemoryProbe* probe, Progress* progress)
      : options_(options),
        dataset_(dataset),
        device_(device),
        fault_(fault),
        mode_(mode),
        model_(model),
        record_(record),
        probe_(probe),
        progress_(progress),
        step_(options, mode, model, dataset, device),
        steps_(step_.steps_per_epoch()),
        losses_(device, steps_, {}, 0.0f),
        timer_(measure::make_step_timer(device, steps_)) {
    if (step_.scaler()) scale_recorder_.emplace(device, steps_, options.grad_scaler.init_scale);
  }

  // Trains and measures one epoch; false when the trial stopped in it (interrupted or diverged).
  bool epoch(int64_t epoch);
  // Trains `count` steps of epoch 1 untimed, wrapping round an epoch shorter than that.
  void first_steps(int64_t count);
  // What the record says about the whole trial once it ends.
  void finish() {
    record_.master_weights_fp32 = parameters_are(model_, torch::kFloat32);
    record_.weights_kept_dtype = parameters_are(model_, amp::recipe_of(mode_).weights);
    record_.optimizer_fallback = step_.optimizer_fallback();
    record_.data_order_checksum = util::hex64(orders_hash_);
  }

 private:
  struct TimedSteps {
    double seconds = 0;
    bool stopped = false;
    bool profiler_on = false;
    measure::CpuUsage cpu;
  };
  // Steps [begin, end), untimed (warm-up); true when a stop was requested before one of them.
  bool warm_up(int64_t epoch, const torch::Tensor& order, int64_t end);
  // The epoch's timed region, llm.c's shape: synchronise, start the clock, the steps, synchronise, stop.
  TimedSteps timed(int64_t epoch, const torch::Tensor& order, int64_t begin);
  void train_step(int64_t epoch, const torch::Tensor& order, int64_t step);
  bool fault_fires_at(int64_t global_step) const {
    return fault_ && fires_at(*fault_, mode_, record_.trial, global_step);
  }
  // After the timed region: the epoch's figures into the record; false when its loss was not finite.
  bool record_epoch(int64_t epoch, int64_t first_timed_step, const TimedSteps& timed);
  void mark_interrupted(int64_t epoch);
  void mark_diverged(int64_t epoch, int64_t step);
  void mark_diverged_in_validation(int64_t epoch, double val_loss);
  void publish_epoch(int64_t epoch) const;

  const TrainerOptions& options_;
  const data::Dataset& dataset_;
  torch::Device device_;
  const std::optional<FaultInjection>& fault_;
  amp::PrecisionMode mode_;
  models::Network& model_;
  TrialRecord& record_;
  measure::MemoryProbe* probe_;
  Progress* progress_;
  TrainingStep step_;
  int64_t steps_;
  // Every step's loss, kept on the device (no reduction in the loop): the epoch's training loss and the
  // divergence check (NaN or inf in the loss, unlike fp16's skipped steps, whose loss is finite and whose
  // overflow is in the scaled gradients) are read from it after the timed region.
  PerStepBuffer losses_;
  std::unique_ptr<measure::StepTimer> timer_;
  std::optional<LossScaleRecorder> scale_recorder_;
  // Each epoch's batch order folded in as it is drawn (as checksum() chains tensors), so that a trial holds
  // one order at a time: its memory stays what its first epoch held.
  uint64_t orders_hash_ = util::fnv1a(nullptr, 0);
  bool static_memory_marked_ = false;
  const bool forbid_host_sync_ = measure::host_sync_check_requested();  // read here, not in the timed loop
};

bool TrialRun::epoch(int64_t epoch) {
  auto order_cpu = data::epoch_order(options_.seed, epoch, dataset_.train_size());
  orders_hash_ = util::fnv1a(order_cpu.data_ptr(), order_cpu.nbytes(), orders_hash_);
  // Batches are cut where the data lives: on the device, or (data too large for it) in host memory.
  const auto order = dataset_.staged ? order_cpu.to(device_) : order_cpu;
  model_.train();
  step_.zero_grad();
  publish_epoch(epoch);
  const int64_t first_timed_step = epoch == 1 ? options_.train.warmup_steps : 0;
  // A stop request ends the epoch at the next step boundary; the partial epoch is not reported.
  const bool stopped_in_warm_up = warm_up(epoch, order, first_timed_step);
  const auto timed_steps =
      stopped_in_warm_up ? TimedSteps{0, true, false, {}} : timed(epoch, order, first_timed_step);
  if (timed_steps.stopped) {
    mark_interrupted(epoch);
    return false;
  }
  return record_epoch(epoch, first_timed_step, timed_steps);
}

void TrialRun::first_steps(int64_t count) {
  const auto order_cpu = data::epoch_order(options_.seed, 1, dataset_.train_size());
  const auto order = dataset_.staged ? order_cpu.to(device_) : order_cpu;
  model_.train();
  step_.zero_grad();
  for (int64_t i = 0; i < count; ++i) train_step(1, order, i % steps_);
}

bool TrialRun::warm_up(int64_t epoch, const torch::Tensor& order, int64_t end) {
  for (int64_t step = 0; step < end; ++step) {
    if (StopRequest::requested()) return true;
    train_step(epoch, order, step);
  }
  return false;
}

TrialRun::TimedSteps TrialRun::timed(int64_t epoch, const torch::Tensor& order, int64_t begin) {
  TimedSteps out;
  out.profiler_on = profile::profiler_active();
  measure::synchronize(device_);
  const auto cpu_at_start = measure::sample_cpu_usage();  // read outside the clock, at both ends
  const auto start = std::chrono::steady_clock::now();
  timer_->start();
  {
    const measure::HostSyncCheck no_sync(device_, forbid_host_sync_);  // on request: a sync is an error
    for (int64_t step = begin; step < steps_; ++step) {
      if ((out.stopped = StopRequest::requested())) break;
      train_step(epoch, order, step);
      timer_->step_done();  // a clock read or an event record: never a sync
    }
  }
  measure::synchronize(device_);
  out.seconds = seconds_between(start, std::chrono::steady_clock::now());
  out.cpu = measure::cpu_usage_between(cpu_at_start, measure::sample_cpu_usage(), out.seconds,
                                       at::get_num_threads());
  out.profiler_on = out.profiler_on || profile::profiler_active();
  return out;
}

void TrialRun::train_step(int64_t epoch, const torch::Tensor& order, int64_t step) {
  const int64_t global_step = (epoch - 1) * steps_ + step + 1;
  const bool fault_fires = fault_fires_at(global_step);
  if (fault_fires) plant_before_forward(*fault_, step_, model_);
  auto loss = step_.loss(order, step);
  if (fault_fires) loss = inject(*fault_, loss, global_step, model_);
  losses_.write(step, loss);
  const bool stepped = step_.backward_and_step(loss, step);
  if (progress_) progress_->step.store(step + 1, std::memory_order_relaxed);
  if (!stepped) return;
  if (scale_recorder_) scale_recorder_->record(step, *step_.scaler());
  if (probe_ && !static_memory_marked_) {
    // Weights, gradients and optimizer state all exist now; activations have been freed.
    probe_->mark_static();
    static_memory_marked_ = true;
  }
  step_.zero_grad();
}

bool TrialRun::record_epoch(int64_t epoch, int64_t first_timed_step, const TimedSteps& timed) {
  // The timed region is closed: now read what the device accumulated.
  if (scale_recorder_) {
    scale_recorder_->read_epoch(epoch, steps_);
    record_.loss_scale_trace = scale_recorder_->trace();
  }
  auto losses = losses_.values().to(torch::kCPU, torch::kFloat64);
  auto bad_steps = losses.isfinite().logical_not().nonzero();
  if (bad_steps.size(0) > 0) {
    mark_diverged(epoch, bad_steps[0][0].item<int64_t>());
    return false;
  }
  EpochRecord e;
  e.epoch = epoch;
  e.seconds = timed.seconds;
  e.cpu = timed.cpu;
  e.profiler_on = timed.profiler_on;
  e.timed_steps = steps_ - first_timed_step;
  e.timed_samples = e.timed_steps * options_.train.batch_size;
  e.samples_per_second = e.seconds > 0 ? static_cast<double>(e.timed_samples) / e.seconds : 0.0;
  // Warm-up steps stay out of every figure, the training loss included.
  e.train_loss = losses.narrow(0, first_timed_step, e.timed_steps).mean().item<double>();
  if (progress_) progress_->last_train_loss.store(e.train_loss, std::memory_order_relaxed);
  e.step_seconds = timer_->read();
  if (const auto* scaler = step_.scaler()) {
    e.loss_scale = scaler->scale_value();
    // The trace already holds every skipped step: no second count on the device.
    e.skipped_steps = static_cast<int64_t>(record_.loss_scale_trace->skipped_steps.size());
  }
  const auto evaluation = evaluate(model_, mode_, dataset_, options_, device_, step_.float8_settings());
  if (!std::isfinite(evaluation.loss)) {
    mark_diverged_in_validation(epoch, evaluation.loss);
    return false;
  }
  e.val_loss = evaluation.loss;
  e.val_accuracy = evaluation.accuracy;
  if (options_.language_model) e.val_perplexity = std::exp(e.val_loss);
  record_.epochs.push_back(e);
  if (const auto recipe = amp::recipe_of(mode_).linear_recipe)
    record_.float8 = summarize_float8(*recipe, step_.float8_layers(), model_);
  spdlog::info(
      "{} epoch {}/{}: {:.3f} s, {:.1f} samples/s, train loss {:.4f}, val loss {:.4f}, val acc {:.3f}",
      amp::to_string(mode_), epoch, options_.train.epochs, e.seconds, e.samples_per_second, e.train_loss,
      e.val_loss, e.val_accuracy);
  return true;
}

void TrialRun::mark_interrupted(int64_t epoch) {
  record_.status = TrialStatus::interrupted;
  record_.detail = "stopped by signal " + std::to_string(StopRequest::signal_number()) + " during epoch " +
                   std::to_string(epoch) + ", which is not reported";
}

void TrialRun::mark_diverged(int64_t epoch, int64_t step) {
  record_.status = TrialStatus::diverged;
  record_.stopped_at_step = (epoch - 1) * steps_ + step + 1;
  record_.detail = "the training loss became NaN or inf at step " + std::to_string(*record_.stopped_at_step) +
                   " (epoch " + std::to_string(epoch) + ", which is not reported)";
  spdlog::warn("{}: {}", amp::to_string(mode_), *record_.detail);
}

// The training losses stayed finite but the model they left gives a NaN or inf validation loss.
void TrialRun::mark_diverged_in_validation(int64_t epoch, double val_loss) {
  record_.status = TrialStatus::diverged;
  record_.diverged_in_validation = true;
  record_.stopped_at_step = epoch * steps_;
  record_.detail = "the validation loss after epoch " + std::to_string(epoch) + " was " +
                   (std::isnan(val_loss) ? "NaN" : "inf") + " (epoch " + std::to_string(epoch) +
                   " is not reported; its training losses were finite)";
  spdlog::warn("{}: {}", amp::to_string(mode_), *record_.detail);
}

void TrialRun::publish_epoch(int64_t epoch) const {
  if (!progress_) return;
  progress_->epoch.store(epoch, std::memory_order_relaxed);
  progress_->epochs.store(options_.train.epochs, std::memory_order_relaxed);
  progress_->steps.store(steps_, std::memory_order_relaxed);
}

}  // namespace

Trainer::Trainer(TrainerOptions options, const data::Dataset& dataset, const torch::Device& device,
                 std::optional<FaultInjection> fault)
    : options_(std::move(options)), dataset_(dataset), device_(device), fault_(fault) {}

void Trainer::run(amp::PrecisionMode mode, models::Network& model, TrialRecord& record,
                  measure::MemoryProbe* probe, Progress* progress) const {
  // An observer reads back every op's arguments (a host sync each): a timed trial under one would time that.
  if (numerics::observing()) throw std::logic_error("a timed trial cannot run under a numerics observer");
  record.warmup_steps_excluded = options_.train.warmup_steps;
  TrialRun trial(options_, dataset_, device_, fault_, mode, model, record, probe, progress);
  for (int64_t epoch = 1; epoch <= options_.train.epochs; ++epoch) {
    if (!trial.epoch(epoch)) break;  // interrupted or diverged: the finished epochs stand
  }
  trial.finish();
}

void Trainer::train_first_steps(amp::PrecisionMode mode, models::Network& model) const {
  const std::optional<FaultInjection> no_fault;  // the trial holds a reference to it
  TrialRecord record;
  TrialRun trial(options_, dataset_, device_, no_fault, mode, model, record, nullptr, nullptr);
  trial.first_steps(options_.train.accumulation_steps + 1);
}

}  // namespace ampbench::train
