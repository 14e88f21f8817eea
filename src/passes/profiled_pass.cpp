#include "passes/profiled_pass.h"

#include <chrono>

#include <ATen/record_function.h>
#include <spdlog/spdlog.h>

#include "amp/math_settings.h"
#include "data/batch_order.h"
#include "measure/cpu_usage.h"
#include "measure/device.h"
#include "profile/kineto_capture.h"
#include "train/stop_request.h"
#include "train/training_step.h"

namespace ampbench::train {
namespace {

// Steps counted from the first epoch's first batch, across epochs, with the trials' batch orders.
class StepSequence {
 public:
  StepSequence(TrainingStep& step, const TrainerOptions& options, const data::Dataset& dataset,
               const torch::Device& device)
      : step_(step), options_(options), dataset_(dataset), device_(device) {}

  void run(int64_t index) {
    const auto batch = locate(index);
    auto loss = step_.loss(order_, batch);
    step_.backward(loss);
    if (step_.step_on_boundary(batch)) step_.zero_grad();
  }

  // The same work, each phase under its marker; the step ends when its device work does.
  void run_marked(int64_t index) {
    RECORD_USER_SCOPE(profile::kStepMarker);
    const auto batch = locate(index);
    torch::Tensor loss;
    {
      RECORD_USER_SCOPE(profile::kForwardMarker);
      loss = step_.loss(order_, batch);
    }
    {
      RECORD_USER_SCOPE(profile::kBackwardMarker);
      step_.backward(loss);
    }
    {
      RECORD_USER_SCOPE(profile::kOptimizerMarker);
      if (step_.step_on_boundary(batch)) step_.zero_grad();
    }
    measure::synchronize(device_);
  }

 private:
  // The batch within its epoch; makes that epoch's order current.
  int64_t locate(int64_t index) {
    const int64_t per_epoch = step_.steps_per_epoch();
    const int64_t epoch = 1 + index / per_epoch;
    if (epoch != epoch_) {
      auto order = data::epoch_order(options_.seed, epoch, dataset_.train_size());
      order_ = dataset_.staged ? order.to(device_) : order;
      epoch_ = epoch;
    }
    return index % per_epoch;
  }

  TrainingStep& step_;
  const TrainerOptions& options_;
  const data::Dataset& dataset_;
  torch::Device device_;
  int64_t epoch_ = 0;
  torch::Tensor order_;
};

}  // namespace

profile::CapturedEvents capture_profiled_steps(amp::PrecisionMode mode, models::Network& model,
                                               const TrainerOptions& options, const data::Dataset& dataset,
                                               const torch::Device& device,
                                               const config::ProfileConfig& profile,
                                               const std::filesystem::path& trace_path, bool& trace_written,
                                               Progress* progress) {
  TrainingStep step(options, mode, model, dataset, device);
  StepSequence steps(step, options, dataset, device);
  model.train();
  step.zero_grad();
  // The steps shown only between steps: the profiler records the store, not a wait.
  UntimedPassProgress shown(progress, static_cast<int>(mode), PassKind::profile,
                            profile.warmup_steps + profile.steps);
  // A stop request ends the pass at the next step boundary; the steps profiled so far are summarised.
  for (int64_t i = 0; i < profile.warmup_steps && !StopRequest::requested(); ++i) {
    steps.run(i);
    shown.steps_done(i + 1);
  }
  measure::synchronize(device);
  profile::KinetoCapture capture(device.is_cuda());
  capture.start();
  // Sampled outside the profiled steps, as a timed epoch's are outside its clock.
  const auto cpu_at_start = measure::sample_cpu_usage();
  const auto started = std::chrono::steady_clock::now();
  for (int64_t i = profile.warmup_steps;
       i < profile.warmup_steps + profile.steps && !StopRequest::requested(); ++i) {
    steps.run_marked(i);
    shown.steps_done(i + 1);
  }
  measure::synchronize(device);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  const auto cpu =
      measure::cpu_usage_between(cpu_at_start, measure::sample_cpu_usage(), seconds, at::get_num_threads());
  auto events = capture.stop(trace_path, trace_written);
  events.cpu = cpu;
  return events;
}

profile::ModeProfile profile_mode(amp::PrecisionMode mode, models::Network& model,
                                  const TrainerOptions& options, const data::Dataset& dataset,
                                  const torch::Device& device, const config::ProfileConfig& profile,
                                  const std::filesystem::path& trace_path, Progress* progress) {
  bool trace_written = false;
  const auto events = capture_profiled_steps(mode, model, options, dataset, device, profile, trace_path,
                                             trace_written, progress);
  auto out = profile::summarize_profile(events, profile::attribute_ops(events),
                                        amp::recipe_of(mode).autocast.has_value());
  out.warmup_steps = profile.warmup_steps;
  out.cpu = events.cpu;
  if (trace_written) out.trace_file = trace_path.filename().string();
  return out;
}

profile::ProfileRecord profile_record(amp::PrecisionMode mode, profile::ModeProfile profiled,
                                      int64_t planned_steps) {
  profile::ProfileRecord record;
  record.mode = mode;
  if (StopRequest::requested() && profiled.steps < planned_steps) {
    record.stopped = std::string(kStoppedBy) + StopRequest::signal_name() + " after " +
                     std::to_string(profiled.steps) + " of " + std::to_string(planned_steps) +
                     " profiled steps";
    if (profiled.steps == 0) return record;
  }
  record.profile = std::move(profiled);
  return record;
}

void run_profiled_pass(const PlannedTrial& item, PassContext& context, ExperimentResult& result) {
  const auto mode = item.mode;
  profile::ProfileRecord record;
  const auto& profile = context.config.profile;
  spdlog::info("{} profiled pass: {} warm-up and {} profiled steps", amp::to_string(mode),
               profile.warmup_steps, profile.steps);
  amp::MathSettingsScope math(
      amp::settings_for(mode, context.device.type(), context.config.train.cudnn_benchmark));
  const auto trace = context.trace_folder.empty()
                         ? std::filesystem::path()
                         : context.trace_folder / ("trace-" + std::string(amp::to_string(mode)) + ".json");
  const auto start = std::chrono::steady_clock::now();
  try {
    auto model = context.fresh_model(mode);
    record = profile_record(mode,
                            profile_mode(mode, *model, context.trainer.options(), context.dataset,
                                         context.device, profile, trace, context.progress),
                            profile.steps);
  } catch (const std::exception& e) {
    record.mode = mode;
    record.failure = error_line(e);
    spdlog::error("{} profiled pass failed: {}", amp::to_string(mode), *record.failure);
  }
  record.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  result.profiles.push_back(std::move(record));
}

}  // namespace ampbench::train
