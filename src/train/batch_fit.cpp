#include "train/batch_fit.h"

#include "data/batch_order.h"
#include "train/training_step.h"

namespace ampbench::train {

void train_first_steps(const TrainerOptions& options, amp::PrecisionMode mode, models::Network& model,
                       const data::Dataset& dataset, const torch::Device& device) {
  TrainingStep step(options, mode, model, dataset, device);
  const auto order_cpu = data::epoch_order(options.seed, 1, dataset.train_size());
  const auto order = dataset.staged ? order_cpu.to(device) : order_cpu;
  model.train();
  step.zero_grad();
  // An epoch shorter than that wraps round: its batches again, the same shapes.
  const int64_t steps = options.train.accumulation_steps + 1;
  for (int64_t i = 0; i < steps; ++i) {
    const int64_t in_epoch = i % step.steps_per_epoch();
    if (step.backward_and_step(step.loss(order, in_epoch), in_epoch)) step.zero_grad();
  }
}

}  // namespace ampbench::train
