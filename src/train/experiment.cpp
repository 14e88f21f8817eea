#include "train/experiment.h"

#include <chrono>
#include <csignal>

#include <spdlog/spdlog.h>

#include "amp/math_settings.h"
#include "amp/peak_flops.h"
#include "config/resolve.h"
#include "measure/cpu_features.h"
#include "measure/device.h"
#include "measure/gpu_info.h"
#include "train/first_batch_gradient.h"
#include "train/out_of_memory.h"
#include "train/profiled_pass.h"
#include "train/stop_request.h"

namespace ampbench::train {
namespace {

std::optional<amp::ComputeCapability> compute_capability(const torch::Device& device) {
  if (!device.is_cuda()) return std::nullopt;
  auto gpu = measure::gpu_details(device.index());
  if (!gpu) return std::nullopt;
  return amp::ComputeCapability{gpu->capability_major, gpu->capability_minor};
}

// An error's first line says what failed; the rest (CUDA's advice on debugging) would break up a table.
std::string first_line(const std::string& message) { return message.substr(0, message.find('\n')); }

// NHWC weights for convolutions, as torch's model.to(memory_format=torch.channels_last).
void to_channels_last(torch::nn::Module& model) {
  torch::NoGradGuard no_grad;
  for (auto& parameter : model.parameters()) {
    if (parameter.dim() == 4) parameter.set_data(parameter.contiguous(at::MemoryFormat::ChannelsLast));
  }
}

// Any error (a size that does not fit, a kernel that fails, a CUDA error) loses the trial, not the run.
void mark_lost(TrialRecord& record, const c10::Error& e, int64_t batch_size) {
  if (is_out_of_memory(e)) {
    record.status = TrialStatus::oom;
    record.detail = "out of memory at batch size " + std::to_string(batch_size) + ": " +
                    first_line(e.what_without_backtrace());
    spdlog::warn("{}: {}", amp::to_string(record.mode), *record.detail);
  } else {
    record.status = TrialStatus::failed;
    record.detail = first_line(e.what_without_backtrace());
    spdlog::error("{}: {}", amp::to_string(record.mode), *record.detail);
  }
}

TrialRecord skipped_trial(amp::PrecisionMode mode, const std::string& reason) {
  TrialRecord record;
  record.mode = mode;
  record.status = TrialStatus::skipped;
  record.detail = reason;
  return record;
}

void publish_trial(Progress* progress, amp::PrecisionMode mode, int64_t round, int64_t repeats,
                   bool fidelity = false) {
  if (!progress) return;
  progress->fidelity.store(fidelity);
  progress->mode.store(static_cast<int>(mode));
  progress->trial.store(round);
  progress->trials.store(repeats);
  progress->last_train_loss.store(-1.0);
}

}  // namespace

Experiment::Experiment(config::ExperimentConfig config, const torch::Device& device,
                       std::optional<FaultInjection> fault)
    : device_(device),
      fault_(fault),
      probe_(measure::make_memory_probe(device_)),
      dataset_(config::load_data(config, device_)),
      config_(config::fitted_to(std::move(config), dataset_)),
      trainer_(TrainerOptions::from(config_), dataset_, device_, fault_) {}

int64_t Experiment::steps_per_trial() const {
  return config_.train.epochs * (dataset_.train_size() / config_.train.batch_size);
}

std::vector<std::pair<amp::PrecisionMode, amp::ModeSupport>> Experiment::mode_support() const {
  const auto capability = compute_capability(device_);
  const auto cpu_arithmetic = device_.is_cpu() ? measure::cpu_16bit_arithmetic() : std::nullopt;
  std::vector<std::pair<amp::PrecisionMode, amp::ModeSupport>> out;
  for (auto mode : config_.precision.modes) {
    out.emplace_back(mode, amp::check_mode_support(mode, device_.type(), capability, cpu_arithmetic));
  }
  return out;
}

std::vector<amp::PrecisionMode> Experiment::runnable_modes() const {
  std::vector<amp::PrecisionMode> runnable;
  for (const auto& [mode, support] : mode_support()) {
    if (!support.skip_reason) runnable.push_back(mode);
  }
  return runnable;
}

std::shared_ptr<models::Network> Experiment::fresh_model(const ModelState& initial) const {
  auto model = config_.model.spec->build();
  initial.restore_into(*model);
  model->to(device_);
  if (config_.train.channels_last) to_channels_last(*model);
  return model;
}

std::map<amp::PrecisionMode, std::string> Experiment::plan_modes(ExperimentResult& result) const {
  std::map<amp::PrecisionMode, std::string> skipped;
  for (const auto& [mode, support] : mode_support()) {
    if (support.caveat) result.mode_caveats[mode] = *support.caveat;
    if (support.skip_reason) {
      skipped[mode] = *support.skip_reason;
      spdlog::warn("{}: skipped: {}", amp::to_string(mode), *support.skip_reason);
    }
  }
  return skipped;
}

void Experiment::measure_first_gradients(ExperimentResult& result) const {
  auto gradient_in = [&](amp::PrecisionMode mode) -> std::optional<torch::Tensor> {
    amp::MathSettingsScope math(amp::settings_for(mode, device_.type(), config_.train.cudnn_benchmark));
    try {
      return first_batch_gradient(mode, *fresh_model(initial_), trainer_.options(), dataset_, device_);
    } catch (const c10::Error& e) {
      // Out of memory or another error: the mode's trials will meet it again and be marked for it; the
      // run goes on without this cosine rather than ending before any trial.
      spdlog::warn("{}: no first-batch gradient: {}", amp::to_string(mode),
                   first_line(e.what_without_backtrace()));
      return std::nullopt;
    }
  };
  const auto reference = gradient_in(amp::PrecisionMode::fp32);
  if (!reference) return;
  for (auto mode : runnable_modes()) {
    if (mode == amp::PrecisionMode::fp32) continue;
    if (auto gradient = gradient_in(mode))
      result.grad_cosine_vs_fp32[mode] = gradient_cosine(*gradient, *reference);
  }
}

void Experiment::describe_work(ExperimentResult& result) const {
  // 2 FLOPs per multiply-add; training is forward + backward, about 3x the forward pass.
  result.train_flops_per_sample = 6.0 * double(config_.model.spec->forward_macs());
  for (auto mode : config_.precision.modes) {
    std::optional<double> peak;
    if (auto given = config_.peak_tflops.find(mode); given != config_.peak_tflops.end()) {
      peak = given->second;
    } else if (device_.is_cuda()) {
      peak = amp::dense_peak_tflops(measure::device_name(device_), mode);
    }
    if (peak) result.peak_tflops[mode] = *peak;
  }
}

TrialRecord Experiment::run_trial(amp::PrecisionMode mode, int64_t round, Progress* progress) {
  TrialRecord record;
  record.mode = mode;
  record.trial = round;
  spdlog::info("{} trial {}/{}: training {} for {} epoch(s) on {}", amp::to_string(mode), round,
               config_.repeats, config_.model.type, config_.train.epochs, device_.str());
  publish_trial(progress, mode, round, config_.repeats);
  train_into(record, initial_, trainer_, progress);
  return record;
}

void Experiment::run_fidelity_seed(int64_t index, ExperimentResult& result, const TrialDone& on_trial_done,
                                   Progress* progress) {
  auto options = trainer_.options();
  options.seed = config_.seed + uint64_t(index);
  torch::manual_seed(options.seed);
  const auto initial = ModelState::capture(*config_.model.spec->build());
  const Trainer trainer(options, dataset_, device_, fault_);
  const int64_t seeds = config_.precision.fidelity_seeds;
  for (auto mode : runnable_modes()) {
    TrialRecord record;
    record.mode = mode;
    record.trial = index + 1;
    spdlog::info("{} fidelity seed {}/{} (seed {}): training {} for {} epoch(s)", amp::to_string(mode),
                 index + 1, seeds, options.seed, config_.model.type, config_.train.epochs);
    publish_trial(progress, mode, index + 1, seeds, true);
    train_into(record, initial, trainer, progress);
    result.fidelity_trials.push_back(std::move(record));
    if (StopRequest::requested())
      result.stopped_by = StopRequest::signal_number() == SIGTERM ? "SIGTERM" : "SIGINT";
    if (on_trial_done) on_trial_done(result);
    if (result.stopped_by) return;
  }
}

void Experiment::train_into(TrialRecord& record, const ModelState& initial, const Trainer& trainer,
                            Progress* progress) {
  const auto mode = record.mode;
  record.seed = trainer.options().seed;
  {
    amp::MathSettingsScope math(amp::settings_for(mode, device_.type(), config_.train.cudnn_benchmark));
    const auto in_force = amp::current_math_settings();
    record.tf32 = in_force.tf32_matmul && in_force.tf32_conv;
    record.cudnn_benchmark = in_force.cudnn_benchmark;
    record.channels_last = config_.train.channels_last;
    // The trial's set-up is inside the try too: after a CUDA error that leaves the device unusable,
    // every later trial fails here, and is marked for it, instead of ending the run. The model, its
    // gradients and optimizer state are out of scope after it, so the next mode starts with the memory
    // back in the allocator.
    try {
      probe_->begin();
      auto model = fresh_model(initial);
      record.initial_weights_checksum = checksum(state_tensors(*model));
      trainer.run(mode, *model, record, probe_.get(), progress);
    } catch (const c10::Error& e) {
      mark_lost(record, e, config_.train.batch_size);
    }
  }
  record.memory = probe_->read();
  if (!record.master_weights_fp32)
    spdlog::warn("{}: parameters are no longer fp32 after training", amp::to_string(mode));
}

ProfileRecord Experiment::profile_one(amp::PrecisionMode mode) const {
  ProfileRecord record;
  record.mode = mode;
  const auto& profile = config_.profile;
  spdlog::info("{} profiled pass: {} warm-up and {} profiled steps", amp::to_string(mode),
               profile.warmup_steps, profile.steps);
  amp::MathSettingsScope math(amp::settings_for(mode, device_.type(), config_.train.cudnn_benchmark));
  const auto trace = trace_folder_.empty()
                         ? std::filesystem::path()
                         : trace_folder_ / ("trace-" + std::string(amp::to_string(mode)) + ".json");
  const auto start = std::chrono::steady_clock::now();
  try {
    auto model = fresh_model(initial_);
    record.profile = profile_mode(mode, *model, trainer_.options(), dataset_, device_, profile, trace);
  } catch (const c10::Error& e) {
    record.failure = first_line(e.what_without_backtrace());
    spdlog::error("{} profiled pass failed: {}", amp::to_string(mode), *record.failure);
  }
  record.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return record;
}

void Experiment::profile_modes(ExperimentResult& result, const TrialDone& on_trial_done) {
  for (auto mode : runnable_modes()) {
    result.profiles.push_back(profile_one(mode));
    if (on_trial_done) on_trial_done(result);
    if (StopRequest::requested()) {
      result.stopped_by = StopRequest::signal_number() == SIGTERM ? "SIGTERM" : "SIGINT";
      return;
    }
  }
}

ExperimentResult Experiment::run(const TrialDone& on_trial_done, Progress* progress) {
  ExperimentResult result;
  result.data_on_device = dataset_.staged;
  torch::manual_seed(config_.seed);
  initial_ = ModelState::capture(*config_.model.spec->build());
  const auto skipped = plan_modes(result);
  measure_first_gradients(result);
  describe_work(result);
  for (int64_t round = 1; round <= config_.repeats; ++round) {
    for (auto mode : config_.precision.modes) {
      if (auto reason = skipped.find(mode); reason != skipped.end()) {
        if (round == 1) result.trials.push_back(skipped_trial(mode, reason->second));  // one record says it
        continue;
      }
      result.trials.push_back(run_trial(mode, round, progress));
      if (StopRequest::requested())
        result.stopped_by = StopRequest::signal_number() == SIGTERM ? "SIGTERM" : "SIGINT";
      if (on_trial_done) on_trial_done(result);
      if (result.stopped_by) return result;
    }
  }
  for (int64_t index = 1; index < config_.precision.fidelity_seeds; ++index) {
    run_fidelity_seed(index, result, on_trial_done, progress);
    if (result.stopped_by) return result;
  }
  if (config_.profile.enabled()) {
    profile_modes(result, on_trial_done);
    if (result.stopped_by) return result;
  }
  result.complete = true;
  return result;
}

}  // namespace ampbench::train
