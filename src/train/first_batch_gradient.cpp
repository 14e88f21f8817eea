#include "train/first_batch_gradient.h"

#include "amp/autocast_scope.h"
#include "amp/grad_scaler.h"
#include "data/batch_order.h"
#include "optim/optimizer.h"
#include "train/classification_loss.h"

namespace ampbench::train {
namespace {

constexpr int kMaxBackoffs = 64;

}  // namespace

std::optional<torch::Tensor> first_batch_gradient(amp::PrecisionMode mode, models::Network& model,
                                                  const TrainerOptions& options, const data::Dataset& dataset,
                                                  const torch::Device& device) {
  const auto& train = options.train;
  auto index = data::epoch_order(options.seed, 1, dataset.train_size()).narrow(0, 0, train.batch_size);
  if (dataset.staged) index = index.to(device);
  auto inputs = dataset.train_inputs.index_select(0, index).to(device);
  if (train.channels_last) inputs = inputs.contiguous(at::MemoryFormat::ChannelsLast);
  auto labels = dataset.train_labels.index_select(0, index).to(device);

  model.train();
  // Never stepped: it hands the gradients to unscale_ (no momentum, so no buffers).
  optim::FusedSgd holder(model.parameters(), optim::SgdOptions().momentum(0.0));
  auto scaler_options = options.grad_scaler;
  // fp16: as training would, back the scale off until the scaled gradients fit (a bounded number of
  // times: a gradient that is inf at every scale has no fp16 value).
  for (int attempt = 0;; ++attempt) {
    holder.zero_grad();
    torch::Tensor loss;
    {
      amp::AutocastScope autocast(device.type(), amp::autocast_dtype(mode));
      loss = classification_loss(model.forward(inputs), labels);
    }
    if (!amp::needs_grad_scaler(mode)) {
      loss.backward();
      break;
    }
    amp::GradScaler scaler(scaler_options, device);
    scaler.scale(loss).backward();
    scaler.unscale_(holder);
    if (scaler.found_inf().item<float>() == 0.0f) break;
    // A lower scale cures overflowing gradients, not a loss that is already NaN or inf.
    if (attempt == kMaxBackoffs || !loss.isfinite().item<bool>()) return std::nullopt;
    scaler_options.init_scale *= scaler_options.backoff_factor;
  }
  std::vector<torch::Tensor> flat;
  for (const auto& grad : holder.grads()) flat.push_back(grad.detach().flatten().to(torch::kFloat32));
  holder.zero_grad();
  auto gradient = torch::cat(flat);
  if (!gradient.isfinite().all().item<bool>()) return std::nullopt;
  return gradient;
}

double gradient_cosine(const torch::Tensor& a, const torch::Tensor& b) {
  auto x = a.to(torch::kFloat64), y = b.to(torch::kFloat64);
  return (x.dot(y) / (x.norm() * y.norm())).item<double>();
}

}  // namespace ampbench::train
