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

std::vector<size_t> Optimizer::params_with_grad() const {
  std::vector<size_t> indices;
  for (size_t i = 0; i < params_.size(); ++i) {
    if (params_[i].grad().defined()) indices.push_back(i);
  }
  return indices;
}

Optimizer::GradBatch Optimizer::with_grads() const {
  GradBatch batch;
  batch.indices = params_with_grad();
  for (size_t i : batch.indices) {
    batch.params.push_back(params_[i]);
    batch.grads.push_back(params_[i].grad());
  }
  return batch;
}

std::vector<torch::Tensor> Optimizer::grads() const { return with_grads().grads; }

void Optimizer::zero_grad() {
  for (auto& p : params_) p.mutable_grad().reset();
}

FusedSgd::FusedSgd(std::vector<torch::Tensor> params, SgdOptions options)
    : Optimizer(std::move(params)), options_(options) {
  // Zero-initialised buffers make the first step buf = grad, exactly PyTorch's first-step rule (no
  // dampening), and stay valid when that first step is skipped by the GradScaler.
  if (options_.momentum != 0.0) momentum_buffers_ = zeros_like_each(this->params());
}

void FusedSgd::step(const std::optional<torch::Tensor>& found_inf) {
  torch::NoGradGuard no_grad;
  auto batch = with_grads();
  if (batch.indices.empty()) return;
  auto buffers =
      options_.momentum != 0.0 ? select(momentum_buffers_, batch.indices) : std::vector<torch::Tensor>{};
  at::_fused_sgd_(batch.params, batch.grads, buffers, options_.weight_decay, options_.momentum, options_.lr,
                  /*dampening=*/0.0, /*nesterov=*/false, /*maximize=*/false, /*is_first_step=*/false,
                  /*grad_scale=*/std::nullopt, found_inf);
}

FusedAdamW::FusedAdamW(std::vector<torch::Tensor> params, AdamWOptions options)
    : Optimizer(std::move(params)), options_(options) {
  exp_avgs_ = zeros_like_each(this->params());
  exp_avg_sqs_ = zeros_like_each(this->params());
  for (const auto& p : this->params()) steps_.push_back(torch::zeros({}, p.options()));
}

void FusedAdamW::step(const std::optional<torch::Tensor>& found_inf) {
  torch::NoGradGuard no_grad;
  auto batch = with_grads();
  if (batch.indices.empty()) return;
  auto steps = select(steps_, batch.indices);
  // As torch.optim.AdamW(fused=True): count the step, and take it back on the device when it was skipped.
  at::_foreach_add_(steps, 1);
  at::_fused_adamw_(batch.params, batch.grads, select(exp_avgs_, batch.indices),
                    select(exp_avg_sqs_, batch.indices),
                    /*max_exp_avg_sqs=*/{}, steps, options_.lr, options_.beta1, options_.beta2,
                    options_.weight_decay, options_.eps, /*amsgrad=*/false, /*maximize=*/false,
                    /*grad_scale=*/std::nullopt, found_inf);
  if (found_inf) at::_foreach_sub_(steps, std::vector<torch::Tensor>(steps.size(), *found_inf));
}

}  // namespace ampbench::optim
