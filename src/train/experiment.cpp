#include "train/experiment.h"

#include <csignal>

#include <spdlog/spdlog.h>

#include "amp/math_settings.h"
#include "amp/mode_support.h"
#include "data/load_dataset.h"
#include "measure/cpu_features.h"
#include "measure/gpu_info.h"
#include "measure/memory_probe.h"
#include "measure/peak_flops.h"
#include "models/registry.h"
#include "report/gates.h"
#include "report/summary.h"
#include "report/warnings.h"
#include "train/first_batch_gradient.h"
#include "train/model_state.h"
#include "train/out_of_memory.h"
#include "train/stop_request.h"
#include "train/trainer.h"

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

}  // namespace

Experiment::Experiment(config::ExperimentConfig config, const torch::Device& device,
                       std::optional<FaultInjection> fault)
    : config_(std::move(config)),
      device_(device),
      fault_(fault),
      probe_(measure::make_memory_probe(device_)),
      dataset_(data::load_dataset(config_.data, device_)) {
  config::check_fits(config_, dataset_.train_size());
}

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

report::RunReport Experiment::run(const ModeDone& on_mode_done, Progress* progress) {
  report::RunReport report;
  report.config = config::to_json(config_);
  report.environment = measure::capture_environment(device_, report.config, config_.seed);
  report.data_on_device = dataset_.staged;

  const auto& entry = *models::find_model(config_.model.type);
  models::InputSpec input{dataset_.sample_shape, dataset_.num_classes, config_.data.is_language_model()};

  torch::manual_seed(config_.seed);
  const auto initial = ModelState::capture(*entry.build(config_.model.options, input));
  auto fresh_model = [&] {
    auto model = entry.build(config_.model.options, input);
    initial.restore_into(*model);
    model->to(device_);
    if (config_.train.channels_last) to_channels_last(*model);
    return model;
  };
  auto settings_for = [&](amp::PrecisionMode mode) {
    return amp::settings_for(mode, device_.type(), config_.train.cudnn_benchmark);
  };

  // Before any training: which modes can run here, and how far each one's first gradient is from fp32's.
  std::vector<amp::PrecisionMode> runnable;
  std::map<amp::PrecisionMode, std::string> skipped;
  for (const auto& [mode, support] : mode_support()) {
    if (support.caveat) report.mode_caveats[mode] = *support.caveat;
    if (support.skip_reason) {
      skipped[mode] = *support.skip_reason;
      spdlog::warn("{}: skipped: {}", amp::to_string(mode), *support.skip_reason);
    } else {
      runnable.push_back(mode);
    }
  }
  auto gradient_in = [&](amp::PrecisionMode mode) -> std::optional<torch::Tensor> {
    amp::MathSettingsScope math(settings_for(mode));
    try {
      return first_batch_gradient(mode, *fresh_model(), config_, dataset_, device_);
    } catch (const c10::Error& e) {
      // Out of memory or another error: the mode's trials will meet it again and be marked for it; the
      // run goes on without this cosine rather than ending before any trial.
      spdlog::warn("{}: no first-batch gradient: {}", amp::to_string(mode),
                   first_line(e.what_without_backtrace()));
      return std::nullopt;
    }
  };
  if (auto reference = gradient_in(amp::PrecisionMode::fp32)) {
    for (auto mode : runnable) {
      if (mode == amp::PrecisionMode::fp32) continue;
      if (auto gradient = gradient_in(mode))
        report.grad_cosine_vs_fp32[mode] = gradient_cosine(*gradient, *reference);
    }
  }
  report::SummaryInputs inputs{config_.precision.fidelity_tolerance, report.grad_cosine_vs_fp32, {}, {}};
  if (entry.forward_macs) {
    // 2 FLOPs per multiply-add; training is forward + backward, about 3x the forward pass.
    report.train_flops_per_sample = 6.0 * double(entry.forward_macs(config_.model.options, input));
    inputs.train_flops_per_sample = report.train_flops_per_sample;
  }
  for (auto mode : config_.precision.modes) {
    std::optional<double> peak;
    if (auto given = config_.peak_tflops.find(mode); given != config_.peak_tflops.end()) {
      peak = given->second;
    } else if (device_.is_cuda()) {
      peak = measure::dense_peak_tflops(report.environment.device_name, mode);
    }
    if (peak) inputs.peak_tflops[mode] = *peak;
  }

  Trainer trainer(config_, dataset_, device_, fault_);
  for (int64_t round = 1; round <= config_.repeats; ++round) {
    for (auto mode : config_.precision.modes) {
      report::TrialRecord record;
      record.mode = mode;
      record.trial = round;
      if (auto reason = skipped.find(mode); reason != skipped.end()) {
        if (round > 1) continue;  // one record says it
        record.status = "skipped";
        record.detail = reason->second;
        report.trials.push_back(std::move(record));
        continue;
      }
      spdlog::info("{} trial {}/{}: training {} for {} epoch(s) on {}", amp::to_string(mode), round,
                   config_.repeats, config_.model.type, config_.train.epochs, device_.str());
      if (progress) {
        progress->mode.store(static_cast<int>(mode));
        progress->trial.store(round);
        progress->trials.store(config_.repeats);
        progress->last_train_loss.store(-1.0);
      }
      {
        amp::MathSettingsScope math(settings_for(mode));
        const auto in_force = amp::current_math_settings();
        record.tf32 = in_force.tf32_matmul && in_force.tf32_conv;
        record.cudnn_benchmark = in_force.cudnn_benchmark;
        record.channels_last = config_.train.channels_last;
        // The trial's set-up is inside the try too: after a CUDA error that leaves the device unusable,
        // every later trial fails here, and is marked for it, instead of ending the run.
        try {
          probe_->begin();
          auto model = fresh_model();
          record.initial_weights_checksum = checksum(state_tensors(*model));
          trainer.run(mode, *model, record, probe_.get(), progress);
        } catch (const c10::Error& e) {
          // Any error (a size that does not fit, a kernel that fails, a CUDA error) loses the trial, not
          // the run. The model, its gradients and optimizer state are out of scope here, so the next mode
          // starts with the memory back in the allocator.
          if (is_out_of_memory(e)) {
            record.status = "oom";
            record.detail = "out of memory at batch size " + std::to_string(config_.train.batch_size) + ": " +
                            first_line(e.what_without_backtrace());
            spdlog::warn("{}: {}", amp::to_string(mode), *record.detail);
          } else {
            record.status = "failed";
            record.detail = first_line(e.what_without_backtrace());
            spdlog::error("{}: {}", amp::to_string(mode), *record.detail);
          }
        }
      }
      record.memory = probe_->read();
      if (!record.master_weights_fp32)
        spdlog::warn("{}: parameters are no longer fp32 after training", amp::to_string(mode));
      report.trials.push_back(std::move(record));
      report.summary = report::summarize(report.trials, inputs);
      report.warnings = report::find_warnings(report);
      if (StopRequest::requested())
        report.stopped_by = StopRequest::signal_number() == SIGTERM ? "SIGTERM" : "SIGINT";
      if (on_mode_done) on_mode_done(report);
      if (report.stopped_by) return report;
    }
  }
  report.summary = report::summarize(report.trials, inputs);
  report.warnings = report::find_warnings(report);
  report.gates = report::check_gates(config_.gates, report.summary);
  report.complete = true;
  return report;
}

}  // namespace ampbench::train
