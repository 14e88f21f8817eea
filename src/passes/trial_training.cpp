#include "passes/trial_training.h"

#include <spdlog/spdlog.h>

#include "amp/math_settings.h"
#include "amp/weight_format.h"
#include "passes/divergence_replay.h"
#include "train/out_of_memory.h"
#include "train/stop_request.h"

namespace ampbench::train {
namespace {

// Any error (a size that does not fit, a kernel that fails, a CUDA error), LibTorch's or not (oneDNN's
// dnnl::error, a library's own), loses the trial, not the run.
void mark_lost(TrialRecord& record, const std::exception& e, int64_t batch_size) {
  const auto* c10_error = dynamic_cast<const c10::Error*>(&e);
  const bool host_memory = dynamic_cast<const std::bad_alloc*>(&e) != nullptr;
  if ((c10_error && is_out_of_memory(*c10_error)) || host_memory) {
    record.status = TrialStatus::oom;
    record.detail = "out of memory at batch size " + std::to_string(batch_size) + ": " + error_line(e);
    spdlog::warn("{}: {}", amp::to_string(record.mode), *record.detail);
  } else {
    record.status = TrialStatus::failed;
    record.detail = error_line(e);
    spdlog::error("{}: {}", amp::to_string(record.mode), *record.detail);
  }
}

// A trial that diverged (or, in fp16, skipped many steps in a row): its replay's diagnosis into the record,
// after its memory was read.
void diagnose(TrialRecord& record, const ModelState& initial, const Trainer& trainer,
              const PassContext& context) {
  const auto& options = trainer.options();
  const auto target = divergence_target(record, context.dataset.train_size() / options.train.batch_size,
                                        options.train.accumulation_steps);
  if (!target) return;
  const auto mode = record.mode;
  spdlog::info("{} trial {}: {}; replaying it to find the first op that made inf or NaN",
               amp::to_string(mode), record.trial, target->trigger);
  amp::MathSettingsScope math(
      amp::settings_for(mode, context.device.type(), context.config.train.cudnn_benchmark));
  ReplaySetup setup{mode,
                    &options,
                    &context.dataset,
                    context.device,
                    [&] { return context.fresh_model(initial, mode); },
                    context.fault,
                    record.trial,
                    context.progress};
  record.divergence = diagnose_divergence(*target, setup);
  const auto& failure = record.divergence->failure;
  if (failure && failure->starts_with(kStoppedBy))
    spdlog::warn("{} trial {}: the divergence replay was {}", amp::to_string(mode), record.trial, *failure);
  else if (failure)
    spdlog::error("{} trial {}: the divergence replay failed: {}", amp::to_string(mode), record.trial,
                  *failure);
}

}  // namespace

void publish_trial(Progress* progress, const PlannedTrial& item, int64_t of) {
  if (!progress) return;
  progress->fidelity.store(item.kind == PlannedKind::fidelity);
  progress->mode.store(static_cast<int>(item.mode));
  progress->trial.store(item.number);
  progress->trials.store(of);
  progress->last_train_loss.store(-1.0);
}

void train_trial(TrialRecord& record, const ModelState& initial, const Trainer& trainer,
                 const PassContext& context) {
  const auto mode = record.mode;
  record.seed = trainer.options().seed;
  {
    amp::MathSettingsScope math(
        amp::settings_for(mode, context.device.type(), context.config.train.cudnn_benchmark));
    const auto in_force = amp::current_math_settings();
    record.tf32 = in_force.tf32_matmul && in_force.tf32_conv;
    record.cudnn_benchmark = in_force.cudnn_benchmark;
    record.channels_last = context.config.train.channels_last;
    // The trial's set-up is inside the try too: after a CUDA error that leaves the device unusable,
    // every later trial fails here, and is marked for it, instead of ending the run. The model, its
    // gradients and optimizer state are out of scope after it, so the next mode starts with the memory
    // back in the allocator.
    try {
      context.probe.begin();
      auto model = context.fp32_model(initial);
      // The state every mode starts from, before a pure bf16 mode rounds it.
      record.initial_weights_checksum = checksum(state_tensors(*model));
      amp::cast_to_weight_dtype(*model, mode);
      trainer.run(mode, *model, record, &context.probe, context.progress);
    } catch (const std::exception& e) {
      mark_lost(record, e, context.config.train.batch_size);
    }
  }
  record.memory = context.probe.read();
  diagnose(record, initial, trainer, context);
  if (!record.weights_kept_dtype)
    spdlog::warn("{}: parameters are no longer {} after training", amp::to_string(mode),
                 c10::toString(amp::recipe_of(mode).weights));
}

}  // namespace ampbench::train
