#include "train/experiment.h"

#include <algorithm>
#include <chrono>

#include <spdlog/spdlog.h>

#include "amp/math_settings.h"
#include "amp/weight_format.h"
#include "config/resolve.h"
#include "measure/cpu_features.h"
#include "measure/device.h"
#include "measure/gpu_info.h"
#include "measure/memory_budget.h"
#include "train/divergence_replay.h"
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
// LibTorch's enforce failures open with where in LibTorch and the condition ("[enforce fail at
// alloc_cpu.cpp:127] err == 0. "), which says nothing to a user: that part is left out.
std::string first_line(const std::string& message) {
  auto line = message.substr(0, message.find('\n'));
  if (line.rfind("[enforce fail at ", 0) != 0) return line;
  const auto condition_end = line.find(". ", line.find("] "));
  return condition_end == std::string::npos ? line : line.substr(condition_end + 2);
}

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

void publish_trial(Progress* progress, const PlannedTrial& item, int64_t of) {
  if (!progress) return;
  progress->fidelity.store(item.kind == PlannedKind::fidelity);
  progress->mode.store(static_cast<int>(item.mode));
  progress->trial.store(item.number);
  progress->trials.store(of);
  progress->last_train_loss.store(-1.0);
  progress->planned_done.fetch_add(1);
}

}  // namespace

Experiment::Experiment(config::ExperimentConfig config, const torch::Device& device,
                       std::optional<FaultInjection> fault)
    : device_(device),
      fault_(fault),
      probe_(measure::make_memory_probe(device_)),
      dataset_(config::load_data(config, device_)),
      config_(config::fitted_to(std::move(config), dataset_, device_)),
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

std::shared_ptr<models::Network> Experiment::fp32_model(const ModelState& initial) const {
  auto model = config_.model.spec->build();
  initial.restore_into(*model);
  model->to(device_);
  if (config_.train.channels_last) to_channels_last(*model);
  return model;
}

std::shared_ptr<models::Network> Experiment::fresh_model(const ModelState& initial,
                                                         amp::PrecisionMode mode) const {
  auto model = fp32_model(initial);
  amp::cast_to_weight_dtype(*model, mode);
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
      return first_batch_gradient(mode, *fresh_model(initial_, mode), trainer_.options(), dataset_, device_);
    } catch (const c10::Error& e) {
      // Out of memory or another error: the mode's trials will meet it again and be marked for it; the
      // run goes on without this cosine rather than ending before any trial.
      spdlog::warn("{}: no first-batch gradient: {}", amp::to_string(mode),
                   first_line(e.what_without_backtrace()));
      return std::nullopt;
    }
  };
  const auto modes = runnable_modes();
  // Without a mode besides fp32 there is nothing to compare fp32's gradient with: spare its memory and time.
  if (std::none_of(modes.begin(), modes.end(), [](auto m) { return m != amp::PrecisionMode::fp32; })) return;
  const auto reference = gradient_in(amp::PrecisionMode::fp32);
  if (!reference) return;
  for (auto mode : modes) {
    if (mode == amp::PrecisionMode::fp32) continue;
    const auto gradient = gradient_in(mode);
    if (!gradient) continue;
    // A zero gradient on either side has no direction to compare: no cosine, shown as "-".
    if (const auto cosine = gradient_cosine(*gradient, *reference))
      result.grad_cosine_vs_fp32[mode] = *cosine;
  }
}

TrialRecord Experiment::run_timed(const PlannedTrial& item, Progress* progress) {
  TrialRecord record;
  record.mode = item.mode;
  record.trial = item.number;
  spdlog::info("{} trial {}/{}: training {} for {} epoch(s) on {}", amp::to_string(item.mode), item.number,
               config_.repeats, config_.model.type, config_.train.epochs, device_.str());
  publish_trial(progress, item, config_.repeats);
  train_into(record, initial_, trainer_, progress);
  return record;
}

const Experiment::SeedState& Experiment::seed_state(uint64_t seed) {
  if (!other_seed_ || other_seed_->trainer.options().seed != seed) {
    auto options = trainer_.options();
    options.seed = seed;
    torch::manual_seed(seed);
    auto initial = ModelState::capture(*config_.model.spec->build());
    other_seed_.emplace(SeedState{std::move(initial), Trainer(options, dataset_, device_, fault_)});
  }
  return *other_seed_;
}

TrialRecord Experiment::run_fidelity(const PlannedTrial& item, Progress* progress) {
  const auto& state = seed_state(item.seed);
  TrialRecord record;
  record.mode = item.mode;
  record.trial = item.number;
  spdlog::info("{} fidelity seed {}/{} (seed {}): training {} for {} epoch(s)", amp::to_string(item.mode),
               item.number, config_.precision.fidelity_seeds, item.seed, config_.model.type,
               config_.train.epochs);
  publish_trial(progress, item, config_.precision.fidelity_seeds);
  train_into(record, state.initial, state.trainer, progress);
  return record;
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
      auto model = fp32_model(initial);
      // The state every mode starts from, before a pure bf16 mode rounds it.
      record.initial_weights_checksum = checksum(state_tensors(*model));
      amp::cast_to_weight_dtype(*model, mode);
      trainer.run(mode, *model, record, probe_.get(), progress);
    } catch (const c10::Error& e) {
      mark_lost(record, e, config_.train.batch_size);
    }
  }
  record.memory = probe_->read();
  diagnose(record, initial, trainer);
  if (!record.weights_kept_dtype)
    spdlog::warn("{}: parameters are no longer {} after training", amp::to_string(mode),
                 c10::toString(amp::weight_dtype(mode)));
}

void Experiment::diagnose(TrialRecord& record, const ModelState& initial, const Trainer& trainer) const {
  const auto& options = trainer.options();
  const auto target = divergence_target(record, dataset_.train_size() / options.train.batch_size,
                                        options.train.accumulation_steps);
  if (!target) return;
  const auto mode = record.mode;
  spdlog::info("{} trial {}: {}; replaying it to find the first op that made inf or NaN",
               amp::to_string(mode), record.trial, target->trigger);
  amp::MathSettingsScope math(amp::settings_for(mode, device_.type(), config_.train.cudnn_benchmark));
  ReplaySetup setup{mode,   &options,    &dataset_, device_, [&] { return fresh_model(initial, mode); },
                    fault_, record.trial};
  record.divergence = diagnose_divergence(*target, setup);
  if (record.divergence->failure)
    spdlog::error("{} trial {}: the divergence replay failed: {}", amp::to_string(mode), record.trial,
                  *record.divergence->failure);
}

profile::ProfileRecord Experiment::profile_one(amp::PrecisionMode mode) const {
  profile::ProfileRecord record;
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
    auto model = fresh_model(initial_, mode);
    record.profile = profile_mode(mode, *model, trainer_.options(), dataset_, device_, profile, trace);
  } catch (const c10::Error& e) {
    record.failure = first_line(e.what_without_backtrace());
    spdlog::error("{} profiled pass failed: {}", amp::to_string(mode), *record.failure);
  }
  record.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return record;
}

UpdateAudit Experiment::audit_one(amp::PrecisionMode mode) const {
  spdlog::info("{} lost-update audit: an untimed replay of trial 1", amp::to_string(mode));
  amp::MathSettingsScope math(amp::settings_for(mode, device_.type(), config_.train.cudnn_benchmark));
  try {
    return audit_updates(mode, *fresh_model(initial_, mode), trainer_.options(), dataset_, device_);
  } catch (const c10::Error& e) {
    UpdateAudit failed;
    failed.mode = mode;
    failed.failure = first_line(e.what_without_backtrace());
    spdlog::error("{} lost-update audit failed: {}", amp::to_string(mode), *failed.failure);
    return failed;
  }
}

NumericsRecord Experiment::numerics_one(amp::PrecisionMode mode) const {
  spdlog::info("{} numerics pass: an untimed replay of trial 1, {} step(s) measured", amp::to_string(mode),
               config_.numerics.steps);
  amp::MathSettingsScope math(amp::settings_for(mode, device_.type(), config_.train.cudnn_benchmark));
  try {
    return measure_numerics(mode, *fresh_model(initial_, mode), trainer_.options(), dataset_, device_,
                            config_.numerics.steps);
  } catch (const c10::Error& e) {
    NumericsRecord failed;
    failed.mode = mode;
    failed.format = amp::sixteen_bit_format(mode).value();
    failed.failure = first_line(e.what_without_backtrace());
    spdlog::error("{} numerics pass failed: {}", amp::to_string(mode), *failed.failure);
    return failed;
  }
}

std::vector<PlannedTrial> Experiment::plan(const std::map<amp::PrecisionMode, std::string>& skipped) const {
  return plan_run({config_.precision.modes, skipped, config_.repeats, config_.precision.fidelity_seeds,
                   config_.seed, config_.numerics.enabled(), config_.profile.enabled()});
}

void Experiment::run_item(const PlannedTrial& item, const std::string& skip_reason, ExperimentResult& result,
                          Progress* progress) {
  switch (item.kind) {
    case PlannedKind::skipped:
      result.trials.push_back(skipped_trial(item.mode, skip_reason));
      return;
    case PlannedKind::timed:
      result.trials.push_back(run_timed(item, progress));
      return;
    case PlannedKind::fidelity:
      result.fidelity_trials.push_back(run_fidelity(item, progress));
      return;
    case PlannedKind::audited:
      if (progress) progress->planned_done.fetch_add(1);
      result.update_audits.push_back(audit_one(item.mode));
      return;
    case PlannedKind::numerics:
      if (progress) progress->planned_done.fetch_add(1);
      result.numerics.push_back(numerics_one(item.mode));
      return;
    case PlannedKind::profiled:
      if (progress) progress->planned_done.fetch_add(1);
      result.profiles.push_back(profile_one(item.mode));
      return;
  }
}

std::shared_ptr<models::Network> Experiment::seeded_model() const {
  torch::manual_seed(config_.seed);
  return config_.model.spec->build();
}

bool Experiment::make_initial_state(ExperimentResult& result) {
  try {
    const auto model = seeded_model();
    result.model_parameters = trainable_elements(*model);
    result.model_frozen_parameters = frozen_elements(*model);
    result.model_buffers = buffer_elements(*model);
    initial_ = ModelState::capture(*model);
    initial_made_ = true;
    return true;
  } catch (const c10::Error& e) {
    result.setup_failure =
        "the model's initial state could not be made: " + first_line(e.what_without_backtrace());
  } catch (const std::bad_alloc&) {
    result.setup_failure = "the model's initial state could not be made: out of host memory";
  }
  spdlog::error("{}", *result.setup_failure);
  return false;
}

BatchFit Experiment::fit_batch(amp::PrecisionMode mode, int64_t batch) {
  if (!initial_made_) {
    try {
      initial_ = ModelState::capture(*seeded_model());
      initial_made_ = true;
    } catch (const c10::Error& e) {
      throw std::runtime_error("the model's initial state could not be made: " +
                               first_line(e.what_without_backtrace()));
    }
  }
  TORCH_CHECK(batch >= 1 && batch <= dataset_.train_size(), "batch ", batch, " outside 1..",
              dataset_.train_size());
  auto options = trainer_.options();
  options.train.batch_size = batch;
  BatchFit fit{batch};
  amp::MathSettingsScope math(amp::settings_for(mode, device_.type(), config_.train.cudnn_benchmark));
  probe_->begin();
  try {
    auto model = fresh_model(initial_, mode);
    train_first_steps(options, mode, *model, dataset_, device_);
    fit.fits = true;
  } catch (const c10::Error& e) {
    if (!is_out_of_memory(e)) throw;
    fit.detail = first_line(e.what_without_backtrace());
  }
  measure::release_cached_memory(device_);
  const auto reading = probe_->read();
  fit.peak_bytes = reading.baseline_bytes + reading.peak_bytes;
  return fit;
}

ExperimentResult Experiment::run(const TrialDone& on_trial_done, Progress* progress) {
  ExperimentResult result;
  result.data_on_device = dataset_.staged;
  if (!make_initial_state(result)) {
    if (on_trial_done) on_trial_done(result);
    return result;
  }
  const auto skipped = plan_modes(result);
  measure_first_gradients(result);
  const auto items = plan(skipped);
  if (progress) progress->planned_total.store(planned_work(items));
  for (const auto& item : items) {
    const auto reason = skipped.find(item.mode);
    run_item(item, reason != skipped.end() ? reason->second : std::string(), result, progress);
    // A skipped mode ran nothing: there is nothing new to write, and a stop waits for the next trial.
    if (item.kind == PlannedKind::skipped) continue;
    if (StopRequest::requested()) result.stopped_by = StopRequest::signal_name();
    if (on_trial_done) on_trial_done(result);
    if (result.stopped_by) return result;
  }
  result.complete = true;
  return result;
}

}  // namespace ampbench::train
