#include "passes/experiment.h"

#include <algorithm>

#include <spdlog/spdlog.h>

#include "amp/block_kernel_probe.h"
#include "amp/math_settings.h"
#include "config/resolve.h"
#include "measure/cpu_features.h"
#include "measure/device.h"
#include "measure/gpu_info.h"
#include "measure/memory_budget.h"
#include "passes/fidelity_pass.h"
#include "passes/first_batch_gradient.h"
#include "passes/numerics_pass.h"
#include "passes/profiled_pass.h"
#include "passes/timed_pass.h"
#include "passes/update_audit.h"
#include "train/out_of_memory.h"
#include "train/stop_request.h"

namespace ampbench::train {
namespace {

std::optional<amp::ComputeCapability> compute_capability(const torch::Device& device) {
  if (!device.is_cuda()) return std::nullopt;
  auto gpu = measure::gpu_details(device.index());
  if (!gpu) return std::nullopt;
  return amp::ComputeCapability{gpu->capability_major, gpu->capability_minor};
}

// The pass of each kind of entry in a run's plan: a new pass is its file, its kind and its line here.
Pass pass_for(PlannedKind kind) {
  switch (kind) {
    case PlannedKind::skipped:
    case PlannedKind::timed:
      return run_timed_trial;
    case PlannedKind::fidelity:
      return run_fidelity_trial;
    case PlannedKind::audited:
      return run_update_audit;
    case PlannedKind::numerics:
      return run_numerics_pass;
    case PlannedKind::profiled:
      return run_profiled_pass;
  }
  return run_timed_trial;
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
    const auto kernels = [&](amp::LinearRecipe recipe) { return amp::kernels_refusal(recipe, device_); };
    out.emplace_back(mode,
                     amp::check_mode_support(mode, device_.type(), capability, cpu_arithmetic, kernels));
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

std::map<amp::PrecisionMode, std::string> Experiment::skipped_modes(ExperimentResult& result) const {
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

PassContext Experiment::pass_context(const std::map<amp::PrecisionMode, std::string>& skipped,
                                     Progress* progress) {
  return PassContext{config_, device_, dataset_,      trainer_, initial_,    fault_,
                     *probe_, skipped, trace_folder_, progress, std::nullopt};
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
    // Lifted constants are held as buffers but are no state of the model: counted apart.
    result.model_constants = model->lifted_constant_elements();
    result.model_buffers = buffer_elements(*model) - result.model_constants;
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
  BatchFit fit{batch, false, 0, {}};
  amp::MathSettingsScope math(amp::settings_for(mode, device_.type(), config_.train.cudnn_benchmark));
  probe_->begin();
  try {
    const std::map<amp::PrecisionMode, std::string> none;
    auto model = pass_context(none, nullptr).fresh_model(mode);
    Trainer(options, dataset_, device_).train_first_steps(mode, *model);
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
  const auto skipped = skipped_modes(result);
  auto context = pass_context(skipped, progress);
  measure_first_gradients(context, runnable_modes(), result);
  const auto items =
      plan_run({config_.precision.modes, skipped, config_.repeats, config_.precision.fidelity_seeds,
                config_.seed, config_.numerics.enabled(), config_.profile.enabled()});
  if (progress) progress->planned_total.store(planned_work(items));
  for (const auto& item : items) {
    if (progress && item.kind != PlannedKind::skipped) progress->planned_done.fetch_add(1);
    pass_for(item.kind)(item, context, result);
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
