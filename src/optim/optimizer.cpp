#include "optim/optimizer.h"

#include "optim/bf16_rounding.h"

namespace ampbench::optim {
namespace {

template <typename T>
std::vector<T> select(const std::vector<T>& all, const std::vector<size_t>& indices) {
  std::vector<T> out;
  out.reserve(indices.size());
  for (size_t i : indices) out.push_back(all[i]);
  return out;
}

std::vector<torch::Tensor> zeros_like_each(const std::vector<torch::Tensor>& tensors) {
  std::vector<torch::Tensor> out;
  out.reserve(tensors.size());
  for (const auto& t : tensors) out.push_back(torch::zeros_like(t, torch::MemoryFormat::Preserve));
  return out;
}

torch::Tensor fp32_copy(const torch::Tensor& t) {
  return t.to(torch::kFloat32, /*non_blocking=*/false, /*copy=*/true);
}

}  // namespace

UpdateCount UpdateCount::zeros(const torch::Device& device) {
  const auto on = torch::TensorOptions().device(device);
  return {torch::zeros({}, on.dtype(torch::kInt64)), torch::zeros({}, on.dtype(torch::kInt64)),
          torch::zeros({}, on.dtype(torch::kFloat64)), torch::zeros({}, on.dtype(torch::kFloat64))};
}

Optimizer::Optimizer(std::vector<torch::Tensor> params, WeightRounding rounding, uint64_t seed)
    : params_(std::move(params)), rounding_(rounding) {
  for (const auto& p : params_) {
    TORCH_CHECK(p.scalar_type() == torch::kFloat32 || p.scalar_type() == torch::kBFloat16,
                "optimizers expect fp32 or bf16 parameters, got ", p.scalar_type());
  }
  if (rounding_ == WeightRounding::kahan) compensation_ = zeros_like_each(params_);
  if (rounding_ == WeightRounding::stochastic && !params_.empty())
    generator_ = seeded_generator(params_.front().device(), seed);
}

const Optimizer::GradBatch& Optimizer::gather_grads() {
  indices_scratch_.clear();
  for (size_t i = 0; i < params_.size(); ++i) {
    if (params_[i].grad().defined()) indices_scratch_.push_back(i);
  }
  if (indices_scratch_ != batch_.indices || batch_.state.size() != state_.size()) {
    batch_.indices = indices_scratch_;
    batch_.params = select(params_, batch_.indices);
    batch_.state.clear();
    for (const auto& list : state_) batch_.state.push_back(select(list, batch_.indices));
  }
  // The gradients are new tensors at every backward (zero_grad() drops them), so they are gathered anew.
  batch_.grads.clear();
  for (size_t i : batch_.indices) batch_.grads.push_back(params_[i].grad());
  return batch_;
}

const std::vector<torch::Tensor>& Optimizer::grads() { return gather_grads().grads; }

void Optimizer::zero_grad() {
  for (auto& p : params_) p.mutable_grad().reset();
  // The gathered handles would keep the old gradients alive through the next backward, which then holds
  // two sets of gradients at its peak.
  batch_.grads.clear();
}

void Optimizer::step(const std::optional<torch::Tensor>& found_inf) {
  torch::NoGradGuard no_grad;
  const auto& batch = gather_grads();
  if (!batch.indices.empty()) {
    const bool per_parameter = rounding_ != WeightRounding::nearest || count_;
    if (!per_parameter) {
      fused_step(batch.params, batch.grads, batch.state, found_inf);
    } else {
      for (size_t i = 0; i < batch.params.size(); ++i) step_through_fp32(batch, i, found_inf);
    }
  }
  count_ = nullptr;
}

void Optimizer::step_through_fp32(const GradBatch& batch, size_t i,
                                  const std::optional<torch::Tensor>& found_inf) {
  auto weight = batch.params[i];
  std::vector<std::vector<torch::Tensor>> state;
  if (weight.scalar_type() != torch::kBFloat16) {  // fp32 weights: the fused kernel, as always
    for (const auto& list : batch.state) state.push_back({list[i]});
    fused_step({weight}, {batch.grads[i]}, state, found_inf);
    return;
  }
  const size_t index = batch.indices[i];
  for (const auto& list : batch.state) {
    state.push_back({list[i].scalar_type() == torch::kFloat32 ? list[i] : fp32_copy(list[i])});
  }
  const auto before = held(weight, index);
  auto exact = count_ ? before.clone() : before;
  fused_step({exact}, {fp32_copy(batch.grads[i])}, state, found_inf);
  for (size_t k = 0; k < state.size(); ++k) {
    // The state is kept in the parameter's dtype: its fp32 result is rounded to nearest, as torchao does.
    if (!state[k][0].is_same(batch.state[k][i])) batch.state[k][i].copy_(state[k][0]);
  }
  if (count_) {
    store_counted(weight, exact, before, index);
  } else {
    store(weight, exact, index);
  }
}

torch::Tensor Optimizer::held(const torch::Tensor& weight, size_t index) const {
  auto out = fp32_copy(weight);
  if (!compensation_.empty()) out.add_(compensation_[index]);
  return out;
}

void Optimizer::store_counted(torch::Tensor& weight, const torch::Tensor& exact, const torch::Tensor& before,
                              size_t index) {
  const auto old_weight = weight.clone();
  const auto old_compensation = compensation_.empty() ? torch::Tensor() : compensation_[index].clone();
  store(weight, exact, index);
  auto unchanged = weight.eq(old_weight);
  if (old_compensation.defined()) unchanged.logical_and_(compensation_[index].eq(old_compensation));
  const auto update = exact - before;
  const auto moved = update.ne(0);
  count_->moved.add_(moved.sum());
  count_->lost.add_(moved.logical_and_(unchanged).sum());
  count_->wanted.add_(update.abs().sum(torch::kFloat64));
  count_->taken.add_((update.sign() * (held(weight, index) - before)).sum(torch::kFloat64));
}

void Optimizer::store(torch::Tensor& weight, const torch::Tensor& exact, size_t index) {
  switch (rounding_) {
    case WeightRounding::nearest:
      weight.copy_(exact);
      return;
    case WeightRounding::stochastic:
      weight.copy_(round_stochastically_to_bf16(exact, *generator_));
      return;
    case WeightRounding::kahan: {
      const auto rounded = exact.to(torch::kBFloat16);
      compensation_[index].copy_(exact - rounded.to(torch::kFloat32));
      weight.copy_(rounded);
      return;
    }
  }
}

FusedSgd::FusedSgd(std::vector<torch::Tensor> params, SgdOptions options, RoundingOptions rounding)
    : Optimizer(std::move(params), rounding.rounding(), rounding.seed()), options_(options) {
  // Zero-initialised buffers make the first step buf = grad, exactly PyTorch's first-step rule (no
  // dampening), and stay valid when that first step is skipped by the GradScaler.
  if (options_.momentum() != 0.0) set_state({zeros_like_each(this->params())});
}

void FusedSgd::fused_step(const std::vector<torch::Tensor>& params, const std::vector<torch::Tensor>& grads,
                          const std::vector<std::vector<torch::Tensor>>& state,
                          const std::optional<torch::Tensor>& found_inf) {
  at::_fused_sgd_(params, grads, state.empty() ? std::vector<torch::Tensor>{} : state[0],
                  options_.weight_decay(), options_.momentum(), options_.lr(),
                  /*dampening=*/0.0, /*nesterov=*/false, /*maximize=*/false, /*is_first_step=*/false,
                  /*grad_scale=*/std::nullopt, found_inf);
}

FusedAdamW::FusedAdamW(std::vector<torch::Tensor> params, AdamWOptions options, RoundingOptions rounding)
    : Optimizer(std::move(params), rounding.rounding(), rounding.seed()), options_(options) {
  // The step counters are fp32 whatever the parameters' dtype (bf16 counts exactly only to 256), as
  // torch.optim.AdamW(fused=True) keeps them.
  std::vector<torch::Tensor> steps;
  for (const auto& p : this->params()) steps.push_back(torch::zeros({}, p.options().dtype(torch::kFloat32)));
  set_state({zeros_like_each(this->params()), zeros_like_each(this->params()), std::move(steps)});
}

void FusedAdamW::fused_step(const std::vector<torch::Tensor>& params, const std::vector<torch::Tensor>& grads,
                            const std::vector<std::vector<torch::Tensor>>& state,
                            const std::optional<torch::Tensor>& found_inf) {
  const auto& steps = state[2];
  // As torch.optim.AdamW(fused=True): count the step, and take it back on the device when it was skipped.
  at::_foreach_add_(steps, 1);
  at::_fused_adamw_(params, grads, state[0], state[1], /*max_exp_avg_sqs=*/{}, steps, options_.lr(),
                    options_.beta1(), options_.beta2(), options_.weight_decay(), options_.eps(),
                    /*amsgrad=*/false, /*maximize=*/false, /*grad_scale=*/std::nullopt, found_inf);
  if (found_inf) at::_foreach_add_(steps, *found_inf, /*alpha=*/-1);
}

int state_per_parameter(const OptimizerOptions& options) {
  if (const auto* sgd = std::get_if<SgdOptions>(&options)) return sgd->momentum() != 0.0 ? 1 : 0;
  return 2;
}

std::unique_ptr<Optimizer> make_optimizer(const OptimizerOptions& options, std::vector<torch::Tensor> params,
                                          RoundingOptions rounding) {
  if (const auto* adamw = std::get_if<AdamWOptions>(&options)) {
    return std::make_unique<FusedAdamW>(std::move(params), *adamw, rounding);
  }
  return std::make_unique<FusedSgd>(std::move(params), std::get<SgdOptions>(options), rounding);
}

}  // namespace ampbench::optim
