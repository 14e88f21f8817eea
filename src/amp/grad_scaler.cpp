#include "amp/grad_scaler.h"

#include <stdexcept>

namespace ampbench::amp {

GradScaler::GradScaler(GradScalerOptions options, const torch::Device& device) : options_(options) {
  auto on_device = torch::TensorOptions().device(device);
  scale_and_found_inf_ = torch::tensor({options_.init_scale, 0.0}, on_device.dtype(torch::kFloat32));
  scale_ = scale_and_found_inf_.select(0, 0);
  found_inf_ = scale_and_found_inf_.select(0, 1);
  growth_tracker_ = torch::zeros({}, on_device.dtype(torch::kInt32));
  scale_fp64_ = torch::empty({}, on_device.dtype(torch::kFloat64));
  inv_scale_ = torch::empty({}, on_device.dtype(torch::kFloat32));
}

torch::Tensor GradScaler::scale(const torch::Tensor& loss) const { return loss * scale_; }

void GradScaler::unscale_(optim::Optimizer& optimizer) {
  if (stage_ == Stage::unscaled) {
    throw std::logic_error("GradScaler::unscale_() has already been called since the last update()");
  }
  if (stage_ == Stage::stepped) throw std::logic_error("GradScaler::unscale_() is being called after step()");
  torch::NoGradGuard no_grad;
  // As torch.amp.GradScaler: the reciprocal is taken in double, then rounded to fp32 (same three kernels,
  // written in place).
  scale_fp64_.copy_(scale_);
  scale_fp64_.reciprocal_();
  inv_scale_.copy_(scale_fp64_);
  found_inf_.zero_();
  // The kernel wants one dtype per call. Every gradient here is fp32: the optimizer holds fp32 master
  // weights only, and autograd gives each gradient its parameter's dtype. So one call takes them all.
  const auto& grads = optimizer.grads();
  if (!grads.empty()) at::_amp_foreach_non_finite_check_and_unscale_(grads, found_inf_, inv_scale_);
  stage_ = Stage::unscaled;
}

void GradScaler::step(optim::Optimizer& optimizer) {
  if (stage_ == Stage::stepped) {
    throw std::logic_error("GradScaler::step() has already been called since the last update()");
  }
  if (stage_ == Stage::ready) unscale_(optimizer);
  optimizer.step(found_inf_);
  stage_ = Stage::stepped;
}

void GradScaler::update() {
  if (stage_ == Stage::ready) {
    throw std::logic_error("GradScaler::update(): no inf checks were recorded since the last update()");
  }
  at::_amp_update_scale_(scale_, growth_tracker_, found_inf_, options_.growth_factor, options_.backoff_factor,
                         options_.growth_interval);
  stage_ = Stage::ready;
}

double GradScaler::scale_value() const { return scale_.item<double>(); }

int64_t GradScaler::growth_tracker_value() const { return growth_tracker_.item<int64_t>(); }

}  // namespace ampbench::amp
