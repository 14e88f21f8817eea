#include "optim/optimizer.h"

#include <algorithm>
#include <mutex>
#include <set>

#include <spdlog/spdlog.h>

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
  int64_t elements = 0;
  for (const auto& p : params_) elements += p.numel();
  slice_elements_ = std::max(elements / kSlicesPerModel, kMinSliceElements);
  if (rounding_ == WeightRounding::stochastic && !params_.empty())
    generator_ = seeded_generator(params_.front().device(), seed);
}

void Optimizer::check_fused_kernel_on_bf16() {
  const auto bf16 = std::find_if(params_.begin(), params_.end(),
                                 [](const torch::Tensor& p) { return p.scalar_type() == torch::kBFloat16; });
  fused_updates_bf16_ = true;
  if (bf16 == params_.end()) return;
  torch::NoGradGuard no_grad;
  // Longer than any SIMD register holds bf16 elements, and not a multiple of one, so both the vector blocks
  // and the scalar tail are stepped; from zero every update is representable.
  const auto probe = torch::zeros({131}, bf16->options());
  probe_step(probe, torch::ones_like(probe));
  fused_updates_bf16_ = probe.ne(0).all().item<bool>();
  if (*fused_updates_bf16_) return;
  static std::mutex mutex;
  static std::set<std::string> warned;
  std::lock_guard lock(mutex);
  if (!warned.insert(std::string(kernel_name())).second) return;
  spdlog::warn(
      "the {} kernel of this LibTorch left bf16 weights on {} unchanged in a check step "
      "(pytorch/pytorch#191763): bf16 weights are stepped through fp32 working copies instead",
      kernel_name(), probe.device().str());
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
  if (!fused_updates_bf16_) check_fused_kernel_on_bf16();  // once; a training step checks before timing
  const auto& batch = gather_grads();
  if (!batch.indices.empty()) {
    const bool per_parameter = rounding_ != WeightRounding::nearest || count_ || !*fused_updates_bf16_;
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
  const auto& weight = batch.params[i];
  if (weight.scalar_type() != torch::kBFloat16) {  // fp32 weights: the fused kernel, as always
    std::vector<std::vector<torch::Tensor>> state;
    for (const auto& list : batch.state) state.push_back({list[i]});
    fused_step({weight}, {batch.grads[i]}, state, found_inf);
    return;
  }
  auto slices = slices_of(batch, i);
  for (auto& slice : slices) step_slice(slice, found_inf);
  // A scalar state (AdamW's step counter) moved alike in every slice: the parameter's takes the last's.
  for (size_t k = 0; k < batch.state.size(); ++k) {
    if (batch.state[k][i].dim() == 0) batch.state[k][i].copy_(slices.back().state[k]);
  }
}

std::vector<Optimizer::Slice> Optimizer::slices_of(const GradBatch& batch, size_t i) const {
  Slice whole{batch.params[i],
              batch.grads[i],
              {},
              compensation_.empty() ? torch::Tensor() : compensation_[batch.indices[i]],
              batch.params[i].unsafeGetTensorImpl()};
  for (const auto& list : batch.state) whole.state.push_back(list[i]);
  // Elementwise updates pair elements by memory order, so slices are taken where all the tensors lay
  // their elements out alike, densely (always, for LibTorch's parameters, gradients and zeros_like state).
  const auto& strides = whole.weight.strides();
  bool sliceable = whole.weight.is_non_overlapping_and_dense() && whole.grad.strides() == strides &&
                   (!whole.compensation.defined() || whole.compensation.strides() == strides);
  for (const auto& t : whole.state) sliceable = sliceable && (t.dim() == 0 || t.strides() == strides);
  const int64_t elements = whole.weight.numel();
  std::vector<Slice> slices;
  if (!sliceable || elements <= slice_elements_) {
    slices.push_back(whole);
  } else {
    const auto flat = [](const torch::Tensor& t, int64_t begin, int64_t end) {
      return t.as_strided({t.numel()}, {1}, t.storage_offset()).slice(0, begin, end);
    };
    for (int64_t begin = 0; begin < elements; begin += slice_elements_) {
      const auto end = std::min(begin + slice_elements_, elements);
      Slice slice{flat(whole.weight, begin, end),
                  flat(whole.grad, begin, end),
                  {},
                  whole.compensation.defined() ? flat(whole.compensation, begin, end) : torch::Tensor(),
                  whole.parameter};
      for (const auto& t : whole.state) slice.state.push_back(t.dim() == 0 ? t : flat(t, begin, end));
      slices.push_back(std::move(slice));
    }
  }
  // Every slice counts a scalar state from the parameter's value before the step.
  for (auto& slice : slices) {
    for (auto& t : slice.state) {
      if (t.dim() == 0) t = t.clone();
    }
  }
  return slices;
}

void Optimizer::step_slice(Slice& slice, const std::optional<torch::Tensor>& found_inf) {
  std::vector<std::vector<torch::Tensor>> state;
  for (const auto& t : slice.state) state.push_back({t.scalar_type() == torch::kFloat32 ? t : fp32_copy(t)});
  const auto before = held(slice);
  auto exact = count_ ? before.clone() : before;
  fused_step({exact}, {fp32_copy(slice.grad)}, state, found_inf);
  for (size_t k = 0; k < state.size(); ++k) {
    // The state is kept in the parameter's dtype: its fp32 result is rounded to nearest, as torchao does.
    if (!state[k][0].is_same(slice.state[k])) slice.state[k].copy_(state[k][0]);
  }
  if (count_) {
    store_counted(slice, exact, before);
  } else {
    store(slice, exact);
  }
}

torch::Tensor Optimizer::held(const Slice& slice) const {
  auto out = fp32_copy(slice.weight);
  if (slice.compensation.defined()) out.add_(slice.compensation);
  return out;
}

void Optimizer::store_counted(Slice& slice, const torch::Tensor& exact, const torch::Tensor& before) {
  const auto old_weight = slice.weight.clone();
  const auto old_compensation = slice.compensation.defined() ? slice.compensation.clone() : torch::Tensor();
  store(slice, exact);
  auto unchanged = slice.weight.eq(old_weight);
  if (old_compensation.defined()) unchanged.logical_and_(slice.compensation.eq(old_compensation));
  const auto update = exact - before;
  const auto moved = update.ne(0);
  count_->moved.add_(moved.sum());
  count_->lost.add_(moved.logical_and_(unchanged).sum());
  count_->wanted.add_(update.abs().sum(torch::kFloat64));
  count_->taken.add_((update.sign() * (held(slice) - before)).sum(torch::kFloat64));
  if (count_->per_parameter) {
    auto& squares = count_->update_squares[slice.parameter];
    const auto sum = update.square().sum(torch::kFloat64);
    squares = squares.defined() ? squares + sum : sum;
  }
}

void Optimizer::store(Slice& slice, const torch::Tensor& exact) {
  switch (rounding_) {
    case WeightRounding::nearest:
      slice.weight.copy_(exact);
      return;
    case WeightRounding::stochastic:
      slice.weight.copy_(round_stochastically_to_bf16(exact, *generator_));
      return;
    case WeightRounding::kahan: {
      const auto rounded = exact.to(torch::kBFloat16);
      slice.compensation.copy_(exact - rounded.to(torch::kFloat32));
      slice.weight.copy_(rounded);
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

void FusedSgd::probe_step(const torch::Tensor& probe, const torch::Tensor& grad) {
  // No momentum: with a momentum buffer the affected kernels read past it.
  at::_fused_sgd_({probe}, {grad}, {}, /*weight_decay=*/0.0, /*momentum=*/0.0, options_.lr(),
                  /*dampening=*/0.0, /*nesterov=*/false, /*maximize=*/false, /*is_first_step=*/false,
                  /*grad_scale=*/std::nullopt, /*found_inf=*/std::nullopt);
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

void FusedAdamW::probe_step(const torch::Tensor& probe, const torch::Tensor& grad) {
  const auto fresh = [&] { return torch::zeros_like(probe); };
  fused_step({probe}, {grad},
             {{fresh()}, {fresh()}, {torch::zeros({}, probe.options().dtype(torch::kFloat32))}},
             std::nullopt);
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
