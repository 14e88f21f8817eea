#include "passes/first_batch_gradient.h"

#include <algorithm>
#include <cmath>

#include <spdlog/spdlog.h>

#include "amp/autocast_scope.h"
#include "amp/float8_linear.h"
#include "amp/grad_scaler.h"
#include "amp/math_settings.h"
#include "amp/weight_format.h"
#include "data/batch_order.h"
#include "optim/optimizer.h"
#include "train/classification_loss.h"
#include "train/low_bit_settings.h"

namespace ampbench::train {
namespace {

constexpr int kMaxBackoffs = 64;
// Elements of the two gradients taken into fp64 at a time by gradient_cosine.
constexpr int64_t kCosineChunk = int64_t(1) << 22;

// The gradients as one fp32 vector in host memory: a whole model's gradient (4.4 GB for llama-1b) kept on
// the device, twice while modes are compared, would take memory the trials' peaks never see.
torch::Tensor flat_on_host(const std::vector<torch::Tensor>& grads) {
  int64_t total = 0;
  for (const auto& grad : grads) total += grad.numel();
  auto flat = torch::empty({total}, torch::kFloat32);
  int64_t offset = 0;
  for (const auto& grad : grads) {
    flat.narrow(0, offset, grad.numel()).copy_(grad.detach().flatten());
    offset += grad.numel();
  }
  return flat;
}

}  // namespace

std::optional<torch::Tensor> first_batch_gradient(amp::PrecisionMode mode, models::Network& model,
                                                  const TrainerOptions& options, const data::Dataset& dataset,
                                                  const torch::Device& device) {
  const auto& train = options.train;
  auto index = data::epoch_order(options.seed, 1, dataset.train_size()).narrow(0, 0, train.batch_size);
  if (dataset.staged) index = index.to(device);
  auto inputs = amp::cast_inputs(dataset.train_inputs.index_select(0, index).to(device), mode);
  if (train.channels_last) inputs = inputs.contiguous(at::MemoryFormat::ChannelsLast);
  auto labels = dataset.train_labels.index_select(0, index).to(device);

  model.train();
  const auto float8 = low_bit_settings(mode, options, model, inputs);
  amp::Float8Layers layers(options.seed);  // draws the stochastic rounding as the trial's first step does
  // Never stepped: it hands the gradients to unscale_ (no momentum, so no buffers).
  optim::FusedSgd holder(model.parameters(), optim::SgdOptions().momentum(0.0));
  auto scaler_options = options.grad_scaler;
  // fp16: as training would, back the scale off until the scaled gradients fit (a bounded number of
  // times: a gradient that is inf at every scale has no fp16 value).
  for (int attempt = 0;; ++attempt) {
    holder.zero_grad();
    // Every mode and attempt draws the same random numbers (dropout's masks, anything random in an exported
    // graph): the cosine between modes then compares one computation in two precisions.
    torch::manual_seed(options.seed);
    torch::Tensor loss;
    {
      amp::AutocastScope autocast(device.type(), amp::recipe_of(mode).autocast);
      amp::Float8Scope float8_scope(float8, &layers);
      loss = classification_loss(model.forward(inputs), labels);
    }
    if (amp::recipe_of(mode).gradient_guard != amp::GradientGuard::grad_scaler) {
      loss.backward();
      break;
    }
    amp::GradScaler scaler(scaler_options, device);
    scaler.scale(loss).backward();
    scaler.unscale_(holder);
    if (scaler.found_inf().item<float>() == 0.0f) break;
    // A lower scale cures overflowing gradients, not a loss that is already NaN or inf.
    if (attempt == kMaxBackoffs || !loss.isfinite().item<bool>()) return std::nullopt;
    spdlog::info("{} first-batch gradient: inf or NaN at loss scale {:g}; again at {:g}",
                 amp::to_string(mode), scaler_options.init_scale,
                 scaler_options.init_scale * scaler_options.backoff_factor);
    scaler_options.init_scale *= scaler_options.backoff_factor;
  }
  auto gradient = flat_on_host(holder.grads());
  holder.zero_grad();
  if (!gradient.isfinite().all().item<bool>()) return std::nullopt;
  return gradient;
}

std::optional<double> gradient_cosine(const torch::Tensor& a, const torch::Tensor& b) {
  // In fp64 a chunk at a time: whole fp64 copies of both would take four times a gradient's fp32 size.
  double dot = 0, a_squared = 0, b_squared = 0;
  for (int64_t start = 0; start < a.numel(); start += kCosineChunk) {
    const int64_t n = std::min(kCosineChunk, a.numel() - start);
    const auto x = a.narrow(0, start, n).to(torch::kFloat64), y = b.narrow(0, start, n).to(torch::kFloat64);
    dot += x.dot(y).item<double>();
    a_squared += x.dot(x).item<double>();
    b_squared += y.dot(y).item<double>();
  }
  const double cosine = dot / (std::sqrt(a_squared) * std::sqrt(b_squared));
  if (!std::isfinite(cosine)) return std::nullopt;
  return cosine;
}

void measure_first_gradients(const PassContext& context, const std::vector<amp::PrecisionMode>& runnable,
                             ExperimentResult& result) {
  auto gradient_in = [&](amp::PrecisionMode mode) -> std::optional<torch::Tensor> {
    UntimedPassProgress shown(context.progress, static_cast<int>(mode), PassKind::first_gradient, 0);
    amp::MathSettingsScope math(
        amp::settings_for(mode, context.device.type(), context.config.train.cudnn_benchmark));
    try {
      return first_batch_gradient(mode, *context.fresh_model(mode), context.trainer.options(),
                                  context.dataset, context.device);
    } catch (const std::exception& e) {  // any kind: a mode the device cannot run is that mode's loss
      spdlog::warn("{}: no first-batch gradient: {}", amp::to_string(mode), error_line(e));
      return std::nullopt;
    }
  };
  // Without a mode besides fp32 there is nothing to compare fp32's gradient with: spare its memory and time.
  if (std::none_of(runnable.begin(), runnable.end(), [](auto m) { return m != amp::PrecisionMode::fp32; }))
    return;
  spdlog::info(
      "first-batch gradients: a forward and backward per mode at the initial weights, untimed, for "
      "the cosine against fp32's");
  const auto reference = gradient_in(amp::PrecisionMode::fp32);
  if (!reference) return;
  for (auto mode : runnable) {
    if (mode == amp::PrecisionMode::fp32) continue;
    const auto gradient = gradient_in(mode);
    if (!gradient) continue;
    // A zero gradient on either side has no direction to compare: no cosine, shown as "-".
    if (const auto cosine = gradient_cosine(*gradient, *reference))
      result.grad_cosine_vs_fp32[mode] = *cosine;
  }
}

}  // namespace ampbench::train
