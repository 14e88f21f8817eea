#include "train/experiment.h"

#include <csignal>

#include <spdlog/spdlog.h>

#include "data/synthetic_dataset.h"
#include "measure/memory_probe.h"
#include "models/registry.h"
#include "report/gates.h"
#include "report/summary.h"
#include "report/warnings.h"
#include "train/model_state.h"
#include "train/stop_request.h"
#include "train/trainer.h"

namespace ampbench::train {

Experiment::Experiment(config::ExperimentConfig config, const torch::Device& device,
                       std::optional<FaultInjection> fault)
    : config_(std::move(config)), device_(device), fault_(fault) {}

report::RunReport Experiment::run(const ModeDone& on_mode_done, Progress* progress) {
  report::RunReport report;
  report.config = config::to_json(config_);
  report.environment = measure::capture_environment(device_, report.config, config_.seed);

  // The probe first: on the CPU it installs the counting allocator, which must see every tensor.
  auto probe = measure::make_memory_probe(device_);
  auto dataset = data::make_synthetic_dataset(config_.data, device_);
  const auto& entry = *models::find_model(config_.model.type);
  models::InputSpec input{dataset.sample_shape, dataset.num_classes};

  torch::manual_seed(config_.seed);
  const auto initial = ModelState::capture(*entry.build(config_.model.options, input));
  Trainer trainer(config_, dataset, device_, fault_);

  for (int64_t round = 1; round <= config_.repeats; ++round) {
    for (auto mode : config_.precision.modes) {
      spdlog::info("{} trial {}/{}: training {} for {} epoch(s) on {}", amp::to_string(mode), round,
                   config_.repeats, config_.model.type, config_.train.epochs, device_.str());
      report::TrialRecord record;
      record.mode = mode;
      record.trial = round;
      if (progress) {
        progress->mode.store(static_cast<int>(mode));
        progress->trial.store(round);
        progress->trials.store(config_.repeats);
        progress->last_train_loss.store(-1.0);
      }
      probe->begin();
      {
        auto model = entry.build(config_.model.options, input);
        initial.restore_into(*model);
        model->to(device_);
        record.initial_weights_checksum = checksum(state_tensors(*model));
        try {
          trainer.run(mode, *model, record, progress);
        } catch (const c10::OutOfMemoryError& e) {
          // The model, its gradients and optimizer state go out of scope here, so the next mode starts
          // with the memory back in the allocator.
          record.status = "oom";
          record.detail = "out of memory at batch size " + std::to_string(config_.train.batch_size) + ": " +
                          e.what_without_backtrace();
          spdlog::warn("{}: {}", amp::to_string(mode), *record.detail);
        }
      }
      record.memory = probe->read();
      if (!record.master_weights_fp32)
        spdlog::warn("{}: parameters are no longer fp32 after training", amp::to_string(mode));
      report.trials.push_back(std::move(record));
      report.summary = report::summarize(report.trials);
      report.warnings = report::find_warnings(report);
      if (StopRequest::requested())
        report.stopped_by = StopRequest::signal_number() == SIGTERM ? "SIGTERM" : "SIGINT";
      if (on_mode_done) on_mode_done(report);
      if (report.stopped_by) return report;
    }
  }
  report.gates = report::check_gates(config_.gates, report.summary);
  report.complete = true;
  return report;
}

}  // namespace ampbench::train
