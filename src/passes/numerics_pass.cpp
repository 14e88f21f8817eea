#include "passes/numerics_pass.h"

#include <ATen/CPUGeneratorImpl.h>
#include <spdlog/spdlog.h>

#include "amp/math_settings.h"
#include "data/batch_order.h"
#include "numerics/op_sites.h"
#include "passes/pass_context.h"
#include "passes/sampled_steps.h"
#include "train/stop_request.h"
#include "train/training_step.h"

namespace ampbench::train {
namespace {

int64_t count_of(const torch::Tensor& figures, int64_t index) {
  return int64_t(figures[index].item<double>());
}

// 0-dim figures on the device, read back together as doubles.
torch::Tensor read_back(const std::vector<torch::Tensor>& figures) {
  std::vector<torch::Tensor> doubles;
  for (const auto& figure : figures) doubles.push_back(figure.to(torch::kDouble));
  return torch::stack(doubles).cpu();
}

// The largest finite magnitude among the values, on the device.
torch::Tensor largest_finite_of(const torch::Tensor& values) {
  const auto magnitude = values.abs();
  return torch::where(torch::isfinite(magnitude), magnitude, torch::zeros({}, magnitude.options())).max();
}

// A parameter's gradient figures at one step, read back: see ParameterNumerics.
void add_gradient(ParameterNumerics& into, const torch::Tensor& gradient,
                  const std::optional<torch::Tensor>& scale) {
  const auto scaled = gradient.to(torch::kFloat);
  const auto unscaled = scale ? scaled / *scale : scaled;
  const auto figures = read_back({largest_finite_of(unscaled), (~torch::isfinite(unscaled)).sum(),
                                  (unscaled != 0).sum(), largest_finite_of(scaled)});
  into.gradient_largest = std::max(into.gradient_largest, figures[0].item<double>());
  into.gradient_nonfinite += count_of(figures, 1);
  into.gradient_nonzero += count_of(figures, 2);
  into.gradient_largest_at_scale = std::max(into.gradient_largest_at_scale, figures[3].item<double>());
}

// What the optimizer step did to a parameter, from its weight before the step. The update's size is the
// optimizer's fp32 update: `fp32_squares` where the weight is stored in the format (the optimizer counted it
// before rounding stored it), else the fp32 weight's change, which is that update.
void add_update(ParameterNumerics& into, const torch::Tensor& before, const torch::Tensor& after,
                const std::optional<torch::Tensor>& fp32_squares, c10::ScalarType format,
                bool stored_in_format) {
  const auto update = after.to(torch::kFloat) - before;
  const auto moved = update != 0;
  std::vector<torch::Tensor> parts{fp32_squares ? *fp32_squares : update.square().sum(),
                                   before.square().sum(), moved.sum()};
  if (!stored_in_format) {
    // The weight as the format would hold it, and that weight plus the update, rounded back into the format.
    const auto held = before.to(format);
    parts.push_back((moved & ((held.to(torch::kFloat) + update).to(format) == held)).sum());
  }
  const auto figures = read_back(parts);
  into.update_squares += figures[0].item<double>();
  into.weight_squares += figures[1].item<double>();
  into.updates += count_of(figures, 2);
  if (!stored_in_format) into.updates_lost = into.updates_lost.value_or(0) + count_of(figures, 3);
}

// The default random generators' state on the CPU and the device, put back after the twin's step so that
// the mode's step draws the same random numbers (dropout masks) as the twin's did.
class RandomState {
 public:
  explicit RandomState(const torch::Device& device)
      : cpu_(at::detail::getDefaultCPUGenerator()), cpu_state_(cpu_.get_state()) {
    if (!device.is_cpu()) {
      device_ = at::globalContext().defaultGenerator(device);
      device_state_ = device_->get_state();
    }
  }
  void restore() {
    cpu_.set_state(cpu_state_);
    if (device_) device_->set_state(device_state_);
  }

 private:
  at::Generator cpu_;
  at::Tensor cpu_state_;
  std::optional<at::Generator> device_;
  at::Tensor device_state_;
};

class NumericsReplay {
 public:
  NumericsReplay(NumericsRecord& record, models::Network& model, TrainingStep& step,
                 std::shared_ptr<models::Network> twin, const torch::Device& device)
      : record_(record),
        model_(model),
        step_(step),
        parameters_(numerics::named_parameters(model)),
        twin_(twin ? std::optional<Fp32Twin>(Fp32Twin(std::move(twin))) : std::nullopt),
        device_(device) {
    for (const auto& [name, tensor] : parameters_) {
      record_.parameters.emplace_back();
      record_.parameters.back().name = name;
    }
  }

  // Runs step `index` of the epoch's `order` (a boundary step) under the observers, after the twin's, and
  // reads its figures.
  void measure(const torch::Tensor& order, int64_t index) {
    std::optional<amp::LinearObservation> reference;
    if (twin_) {
      RandomState random(device_);
      const auto [inputs, labels] = step_.batch(order, index);
      reference = twin_->run(model_, inputs, labels);
      random.restore();
    }
    std::optional<torch::Tensor> scale;  // in force for this step's backward; the step may change it
    if (step_.scaler()) {
      scale = step_.scaler()->scale_tensor().clone();
      record_.loss_scales.push_back(scale->item<double>());
    }
    const auto gradients_before = gradients_of(model_);
    amp::LinearObservation observed;
    {
      numerics::RangeObserver observer(parameters_, record_.format,
                                       scale ? std::optional(record_.loss_scales.back()) : std::nullopt);
      std::optional<amp::LinearObserver> linear;
      if (twin_) linear.emplace(observed);
      step_.backward(step_.loss(order, index));
      numerics::merge_ranges(record_.layers, observer.layers());
    }
    if (twin_) {
      add_departures(record_.departures, observed, *reference, model_, gradients_before,
                     scale ? std::optional(record_.loss_scales.back()) : std::nullopt, *twin_);
    }
    measure_step(index, scale);
  }

 private:
  // The gradients as backward left them, then the optimizer step and what it did to each weight.
  void measure_step(int64_t index, const std::optional<torch::Tensor>& scale) {
    torch::NoGradGuard no_grad;
    std::vector<torch::Tensor> before;
    for (size_t i = 0; i < parameters_.size(); ++i) {
      const auto& tensor = parameters_[i].second;
      record_.parameters[i].elements += tensor.numel();
      if (tensor.grad().defined()) add_gradient(record_.parameters[i], tensor.grad(), scale);
      before.push_back(tensor.detach().to(torch::kFloat, /*non_blocking=*/false, /*copy=*/true));
    }
    const bool stored_in_format = amp::recipe_of(record_.mode).weights == record_.format;
    auto count = optim::UpdateCount::zeros(device_);
    count.per_parameter = true;
    if (stored_in_format) step_.count_next_update(count);
    step_.step_on_boundary(index);
    for (size_t i = 0; i < parameters_.size(); ++i) {
      const auto& tensor = parameters_[i].second;
      const auto counted = count.update_squares.find(tensor.unsafeGetTensorImpl());
      add_update(record_.parameters[i], before[i], tensor.detach(),
                 counted == count.update_squares.end() ? std::nullopt : std::optional(counted->second),
                 record_.format, stored_in_format);
    }
  }

  NumericsRecord& record_;
  models::Network& model_;
  TrainingStep& step_;
  std::vector<std::pair<std::string, torch::Tensor>> parameters_;
  std::optional<Fp32Twin> twin_;
  torch::Device device_;
};

}  // namespace

NumericsRecord measure_numerics(amp::PrecisionMode mode, models::Network& model,
                                const TrainerOptions& options, const data::Dataset& dataset,
                                const torch::Device& device, int64_t samples,
                                std::shared_ptr<models::Network> fp32_twin, Progress* progress) {
  TrainingStep step(options, mode, model, dataset, device);
  const int64_t accumulation = options.train.accumulation_steps;
  const int64_t updates_per_epoch = (step.steps_per_epoch() + accumulation - 1) / accumulation;
  NumericsRecord record;
  record.mode = mode;
  record.format = amp::recipe_of(mode).observed_format.value();
  record.steps = spread_steps(options.train.epochs * updates_per_epoch, samples);
  NumericsReplay replay(record, model, step, std::move(fp32_twin), device);
  model.train();
  const int64_t total = options.train.epochs * updates_per_epoch;
  int64_t update = 0;
  size_t next = 0;
  UntimedPassProgress shown(progress, static_cast<int>(mode), PassKind::numerics,
                            record.steps.empty() ? 0 : record.steps.back());
  try {
    for (int64_t epoch = 1; epoch <= options.train.epochs && next < record.steps.size(); ++epoch) {
      auto order = data::epoch_order(options.seed, epoch, dataset.train_size());
      if (dataset.staged) order = order.to(device);
      step.zero_grad();
      for (int64_t i = 0; i < step.steps_per_epoch() && next < record.steps.size(); ++i) {
        stop_if_requested(update + 1, total);
        const bool boundary = (i + 1) % accumulation == 0 || i + 1 == step.steps_per_epoch();
        if (boundary && update + 1 == record.steps[next]) {
          replay.measure(order, i);
          ++next;
        } else if (!step.backward_and_step(step.loss(order, i), i)) {
          continue;
        }
        shown.steps_done(++update);
        step.zero_grad();
      }
    }
  } catch (const PassStopped& stopped) {
    // A stop lands between steps: each step measured before it is whole, and keeps its figures.
    record.steps.resize(next);
    record.failure = stopped.what();
  }
  return record;
}

void run_numerics_pass(const PlannedTrial& item, PassContext& context, ExperimentResult& result) {
  const auto mode = item.mode;
  spdlog::info("{} numerics pass: an untimed replay of trial 1 against an fp32 copy", amp::to_string(mode));
  amp::MathSettingsScope math(
      amp::settings_for(mode, context.device.type(), context.config.train.cudnn_benchmark));
  try {
    result.numerics.push_back(measure_numerics(mode, *context.fresh_model(mode), context.trainer.options(),
                                               context.dataset, context.device, context.config.numerics.steps,
                                               context.fp32_model(context.initial), context.progress));
    const auto& record = result.numerics.back();
    spdlog::info("{} numerics pass: {} of the trial's optimizer steps measured{}", amp::to_string(mode),
                 record.steps.size(), record.failure ? "; " + *record.failure : "");
  } catch (const std::exception& e) {
    NumericsRecord failed;
    failed.mode = mode;
    failed.format = amp::recipe_of(mode).observed_format.value();
    failed.failure = error_line(e);
    spdlog::error("{} numerics pass: {}", amp::to_string(mode), *failed.failure);
    result.numerics.push_back(std::move(failed));
  }
}

}  // namespace ampbench::train
