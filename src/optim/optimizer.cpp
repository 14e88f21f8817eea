#include "optim/optimizer.h"

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

}  // namespace

Optimizer::Optimizer(std::vector<torch::Tensor> params) : params_(std::move(params)) {
  for (const auto& p : params_) {
    TORCH_CHECK(p.scalar_type() == torch::kFloat32, "optimizers expect fp32 master weights, got ",
                p.scalar_type());
  }
}

const Optimizer::GradBatch& Optimizer::gather_grads() {
  indices_scratch_.clear();
  for (size_t i = 0; i < params_.size(); ++i) {
    if (params_[i].grad().defined()) indices_scratch_.push_back(i);
  }
  if (indices_scratch_ != batch_.indices) {
    batch_.indices = indices_scratch_;
    batch_.params = select(params_, batch_.indices);
    gather_state(batch_.indices);
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

FusedSgd::FusedSgd(std::vector<torch::Tensor> params, SgdOptions options)
    : Optimizer(std::move(params)), options_(options) {
  // Zero-initialised buffers make the first step buf = grad, exactly PyTorch's first-step rule (no
  // dampening), and stay valid when that first step is skipped by the GradScaler.
  if (options_.momentum() != 0.0) momentum_buffers_ = zeros_like_each(this->params());
}

void FusedSgd::gather_state(const std::vector<size_t>& indices) {
  if (options_.momentum() != 0.0) gathered_momentum_buffers_ = select(momentum_buffers_, indices);
}

void FusedSgd::step(const std::optional<torch::Tensor>& found_inf) {
  torch::NoGradGuard no_grad;
  const auto& batch = gather_grads();
  if (batch.indices.empty()) return;
  at::_fused_sgd_(batch.params, batch.grads, gathered_momentum_buffers_, options_.weight_decay(),
                  options_.momentum(), options_.lr(),
                  /*dampening=*/0.0, /*nesterov=*/false, /*maximize=*/false, /*is_first_step=*/false,
                  /*grad_scale=*/std::nullopt, found_inf);
}

FusedAdamW::FusedAdamW(std::vector<torch::Tensor> params, AdamWOptions options)
    : Optimizer(std::move(params)), options_(options) {
  exp_avgs_ = zeros_like_each(this->params());
  exp_avg_sqs_ = zeros_like_each(this->params());
  for (const auto& p : this->params()) steps_.push_back(torch::zeros({}, p.options()));
}

void FusedAdamW::gather_state(const std::vector<size_t>& indices) {
  gathered_exp_avgs_ = select(exp_avgs_, indices);
  gathered_exp_avg_sqs_ = select(exp_avg_sqs_, indices);
  gathered_steps_ = select(steps_, indices);
}

void FusedAdamW::step(const std::optional<torch::Tensor>& found_inf) {
  torch::NoGradGuard no_grad;
  const auto& batch = gather_grads();
  if (batch.indices.empty()) return;
  // As torch.optim.AdamW(fused=True): count the step, and take it back on the device when it was skipped.
  at::_foreach_add_(gathered_steps_, 1);
  at::_fused_adamw_(batch.params, batch.grads, gathered_exp_avgs_, gathered_exp_avg_sqs_,
                    /*max_exp_avg_sqs=*/{}, gathered_steps_, options_.lr(), options_.beta1(),
                    options_.beta2(), options_.weight_decay(), options_.eps(), /*amsgrad=*/false,
                    /*maximize=*/false,
                    /*grad_scale=*/std::nullopt, found_inf);
  if (found_inf) at::_foreach_add_(gathered_steps_, *found_inf, /*alpha=*/-1);
}

int state_per_parameter(const OptimizerOptions& options) {
  if (const auto* sgd = std::get_if<SgdOptions>(&options)) return sgd->momentum() != 0.0 ? 1 : 0;
  return 2;
}

std::unique_ptr<Optimizer> make_optimizer(const OptimizerOptions& options,
                                          std::vector<torch::Tensor> params) {
  if (const auto* adamw = std::get_if<AdamWOptions>(&options)) {
    return std::make_unique<FusedAdamW>(std::move(params), *adamw);
  }
  return std::make_unique<FusedSgd>(std::move(params), std::get<SgdOptions>(options));
}

}  // namespace ampbench::optim
