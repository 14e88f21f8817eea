#include "train/evaluation.h"

#include <algorithm>

#include "amp/autocast_scope.h"
#include "amp/float8_linear.h"
#include "amp/weight_format.h"
#include "train/classification_loss.h"

namespace ampbench::train {

Evaluation evaluate(models::Network& model, amp::PrecisionMode mode, const data::Dataset& dataset,
                    const TrainerOptions& options, const torch::Device& device,
                    const std::optional<amp::Float8Settings>& float8) {
  torch::NoGradGuard no_grad;
  model.eval();
  auto on_device = torch::TensorOptions().device(device);
  auto loss_sum = torch::zeros({}, on_device.dtype(torch::kFloat64));
  auto correct = torch::zeros({}, on_device.dtype(torch::kInt64));
  const int64_t n = dataset.val_size();
  const int64_t batch = options.train.batch_size;
  const int64_t predictions = dataset.val_labels.numel();  // samples, or tokens for a language model
  for (int64_t begin = 0; begin < n; begin += batch) {
    const int64_t count = std::min(batch, n - begin);
    auto inputs = amp::cast_inputs(dataset.val_inputs.narrow(0, begin, count).to(device, true), mode)
                      .contiguous(options.memory_format());
    auto labels = dataset.val_labels.narrow(0, begin, count).to(device, true);
    torch::Tensor logits;
    {
      amp::AutocastScope autocast(device.type(), amp::recipe_of(mode).autocast);
      amp::Float8Scope float8_scope(float8);
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
