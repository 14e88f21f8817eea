#include "passes/divergence_replay.h"

#include <algorithm>
#include <cmath>
#include <map>

#include <spdlog/spdlog.h>

#include "data/batch_order.h"
#include "numerics/op_observer.h"
#include "numerics/phase.h"
#include "numerics/readable_values.h"
#include "passes/pass_context.h"
#include "train/evaluation.h"
#include "train/planted_faults.h"
#include "train/stop_request.h"
#include "train/training_step.h"

namespace ampbench::train {
namespace {

bool all_finite(const std::vector<torch::Tensor>& tensors) {
  std::vector<torch::Tensor> checks;
  for (const auto& t : tensors) {
    if (!t.defined()) continue;
    if (const auto values = numerics::readable_values(t)) checks.push_back(torch::isfinite(*values).all());
  }
  return checks.empty() || torch::stack(checks).all().item<bool>();
}

// What one replayed step showed, when read back.
struct StepOutcome {
  bool loss_finite = true;
  bool gradients_finite = true;  // checked only without a GradScaler
  bool weights_finite = true;
  bool skipped = false;  // fp16: the GradScaler skipped the optimizer step

  // The first thing that went non-finite in the step, in the order the step made them; "" when none.
  std::string event() const {
    if (!loss_finite) return "non-finite loss";
    if (!gradients_finite) return "non-finite gradients";
    if (!weights_finite) return "non-finite weights after the optimizer step";
    return "";
  }
};

// The trial again, step by step, from a fresh model in its initial state.
class Replay {
 public:
  explicit Replay(const ReplaySetup& setup)
      : setup_(setup),
        model_(setup.fresh_model()),
        step_(*setup.options, setup.mode, *model_, *setup.dataset, setup.device) {}

  // Runs the next step (1-based over the trial); `checked` reads back what its outcome needs.
  StepOutcome next(bool checked) {
    const int64_t spe = step_.steps_per_epoch();
    const int64_t index = done_ % spe;
    if (index == 0) start_epoch(done_ / spe + 1);
    const int64_t global = ++done_;
    const bool planted =
        setup_.fault && replayed(*setup_.fault) && fires_at(*setup_.fault, setup_.mode, setup_.trial, global);
    if (planted) plant_before_forward(*setup_.fault, step_, *model_);
    auto loss = step_.loss(order_, index);
    if (planted) loss = plant_in_loss(*setup_.fault, loss, *model_);
    step_.backward(loss);
    StepOutcome out;
    if (checked) {
      out.loss_finite = all_finite({loss});
      if (!step_.scaler()) out.gradients_finite = all_finite(gradients());
    }
    if (step_.step_on_boundary(index)) {
      if (checked && step_.scaler()) out.skipped = step_.scaler()->found_inf().item<double>() != 0;
      step_.zero_grad();
    }
    if (checked) out.weights_finite = all_finite(model_->parameters());
    return out;
  }

  // The validation loss of the model as the steps so far left it.
  double validate() {
    numerics::mark_phase(numerics::Phase::validation);
    return evaluate(*model_, setup_.mode, *setup_.dataset, *setup_.options, setup_.device,
                    step_.float8_settings())
        .loss;
  }

  int64_t steps_per_epoch() const { return step_.steps_per_epoch(); }
  models::Network& model() { return *model_; }

 private:
  void start_epoch(int64_t epoch) {
    order_ = data::epoch_order(setup_.options->seed, epoch, setup_.dataset->train_size());
    if (setup_.dataset->staged) order_ = order_.to(setup_.device);
    model_->train();
    step_.zero_grad();
  }
  std::vector<torch::Tensor> gradients() const {
    std::vector<torch::Tensor> out;
    for (const auto& p : model_->parameters()) out.push_back(p.grad());
    return out;
  }

  const ReplaySetup& setup_;
  std::shared_ptr<models::Network> model_;
  TrainingStep step_;
  torch::Tensor order_;
  int64_t done_ = 0;
};

// The first pass: every step checked, up to the trial's failure. Fills what the replay saw, and returns the
// first step at which anything became non-finite, with what.
std::optional<std::pair<int64_t, std::string>> find_first_event(const DivergenceTarget& target,
                                                                const ReplaySetup& setup,
                                                                DivergenceDiagnosis& out) {
  Replay replay(setup);
  const int64_t last =
      target.loss_step ? *target.loss_step : *target.validation_epoch * replay.steps_per_epoch();
  std::optional<std::pair<int64_t, std::string>> first;
  UntimedPassProgress shown(setup.progress, static_cast<int>(setup.mode), PassKind::divergence_replay, last);
  for (int64_t step = 1; step <= last; ++step) {
    stop_if_requested(step, last);
    const auto outcome = replay.next(true);
    shown.steps_done(step);
    if (!first && !outcome.event().empty()) first.emplace(step, outcome.event());
    if (outcome.loss_finite) continue;
    out.reproduced = target.loss_step == step;
    out.replay_saw = "the loss became non-finite at step " + std::to_string(step);
    return first;
  }
  if (target.loss_step) {
    out.replay_saw = "the loss stayed finite through step " + std::to_string(last);
    return first;
  }
  const double validation = replay.validate();
  out.reproduced = !std::isfinite(validation);
  out.replay_saw = "the validation loss after epoch " + std::to_string(*target.validation_epoch) + " was " +
                   (out.reproduced ? "not finite" : "finite");
  return first;
}

// The second pass: the replay again, the chosen steps (and, with no step chosen for a validation failure,
// the validation pass) under the observer.
void observe(const DivergenceTarget& target, const ReplaySetup& setup,
             const std::map<int64_t, std::string>& steps, bool observe_validation, DivergenceDiagnosis& out) {
  Replay replay(setup);
  const int64_t last = std::max(steps.empty() ? 0 : steps.rbegin()->first,
                                observe_validation ? *target.validation_epoch * replay.steps_per_epoch() : 0);
  UntimedPassProgress shown(setup.progress, static_cast<int>(setup.mode), PassKind::divergence_replay, last);
  for (int64_t step = 1; step <= last; ++step) {
    stop_if_requested(step, last);
    shown.steps_done(step - 1);
    const auto chosen = steps.find(step);
    if (chosen == steps.end()) {
      replay.next(false);
      continue;
    }
    ObservedStep observed{step, chosen->second, false, std::nullopt};
    numerics::NonFiniteObserver observer(numerics::named_parameters(replay.model()));
    const auto outcome = replay.next(true);
    observed.seen_again =
        chosen->second == "skipped step" ? outcome.skipped : outcome.event() == chosen->second;
    observed.first_op = observer.first();
    out.steps.push_back(std::move(observed));
  }
  if (!observe_validation) return;
  ObservedStep observed{last, "non-finite validation loss", false, std::nullopt};
  numerics::NonFiniteObserver observer(numerics::named_parameters(replay.model()));
  observed.seen_again = !std::isfinite(replay.validate());
  observed.first_op = observer.first();
  out.steps.push_back(std::move(observed));
}

// A diagnosis of skipped steps only: reproduced when the replay skipped every one of them too.
void judge_skips(DivergenceDiagnosis& out) {
  std::string missed;
  for (const auto& step : out.steps) {
    if (!step.seen_again) missed += (missed.empty() ? "" : ", ") + std::to_string(step.step);
  }
  out.reproduced = missed.empty();
  out.replay_saw =
      missed.empty() ? "the replay skipped the same steps" : "the replay did not skip step(s) " + missed;
}

}  // namespace

DivergenceDiagnosis diagnose_divergence(const DivergenceTarget& target, const ReplaySetup& setup) {
  DivergenceDiagnosis out;
  out.trigger = target.trigger;
  try {
    std::map<int64_t, std::string> steps;
    for (const auto step : target.skipped_steps) steps[step] = "skipped step";
    bool observe_validation = false;
    if (target.loss_step || target.validation_epoch) {
      const auto first = find_first_event(target, setup, out);
      if (first) steps[first->first] = first->second;
      observe_validation = !first && target.validation_epoch && out.reproduced;
    }
    if (!steps.empty() || observe_validation) observe(target, setup, steps, observe_validation, out);
    if (!target.loss_step && !target.validation_epoch) judge_skips(out);
  } catch (const std::exception& e) {
    out.failure = error_line(e);
  }
  return out;
}

}  // namespace ampbench::train
