#pragma once

#include <memory>
#include <optional>
#include <variant>
#include <vector>

#include <torch/torch.h>

namespace ampbench::optim {

// An optimizer over one device's fp32 parameters, stepped by LibTorch's fused multi-tensor kernels.
// step() takes GradScaler's found_inf tensor and skips the update on the device when it is non-zero,
// so skipping an fp16 step needs no host sync (the same path torch.amp.GradScaler uses for fused
// optimizers).
class Optimizer {
 public:
  explicit Optimizer(std::vector<torch::Tensor> params);
  virtual ~Optimizer() = default;
  Optimizer(const Optimizer&) = delete;
  Optimizer& operator=(const Optimizer&) = delete;

  const std::vector<torch::Tensor>& params() const { return params_; }
  // The gradients of the parameters that have one, in parameter order: gathered afresh at each call
  // into a vector kept between calls (valid until the next call).
  const std::vector<torch::Tensor>& grads();
  virtual void step(const std::optional<torch::Tensor>& found_inf = std::nullopt) = 0;
  // Drops the gradients (set to none, as PyTorch does by default), so their memory is free for the next
  // backward.
  void zero_grad();

 protected:
  // The parameters that have a gradient, their gradients, and their indices into params(): what a fused
  // kernel takes.
  struct GradBatch {
    std::vector<size_t> indices;
    std::vector<torch::Tensor> params, grads;
  };
  // Refills the batch in place, so that a step allocates no host memory for it while the same parameters
  // have gradients (a parameter may have none, as in PyTorch's optimizers); when that set changes, calls
  // gather_state() first.
  const GradBatch& gather_grads();
  // Gathers the subclass's per-parameter state (momentum, moments) for the parameters at these indices,
  // in the same order, for the fused kernel.
  virtual void gather_state(const std::vector<size_t>& indices) = 0;

 private:
  std::vector<torch::Tensor> params_;
  GradBatch batch_;
  std::vector<size_t> indices_scratch_;
};

// SGD with momentum and L2 weight decay; the defaults are ampbench's (a config's "sgd").
struct SgdOptions {
  TORCH_ARG(double, lr) = 0.05;
  TORCH_ARG(double, momentum) = 0.9;
  TORCH_ARG(double, weight_decay) = 5e-4;
};

// AdamW with decoupled weight decay; the defaults are torch.optim.AdamW's.
struct AdamWOptions {
  TORCH_ARG(double, lr) = 1e-3;
  TORCH_ARG(double, beta1) = 0.9;
  TORCH_ARG(double, beta2) = 0.999;
  TORCH_ARG(double, eps) = 1e-8;
  TORCH_ARG(double, weight_decay) = 1e-2;
};

// Which optimizer, with its settings.
using OptimizerOptions = std::variant<SgdOptions, AdamWOptions>;

class FusedSgd final : public Optimizer {
 public:
  FusedSgd(std::vector<torch::Tensor> params, SgdOptions options);
  void step(const std::optional<torch::Tensor>& found_inf = std::nullopt) override;

 private:
  void gather_state(const std::vector<size_t>& indices) override;

  SgdOptions options_;
  std::vector<torch::Tensor> momentum_buffers_;
  std::vector<torch::Tensor> gathered_momentum_buffers_;
};

class FusedAdamW final : public Optimizer {
 public:
  FusedAdamW(std::vector<torch::Tensor> params, AdamWOptions options);
  void step(const std::optional<torch::Tensor>& found_inf = std::nullopt) override;

 private:
  void gather_state(const std::vector<size_t>& indices) override;

  AdamWOptions options_;
  std::vector<torch::Tensor> exp_avgs_, exp_avg_sqs_, steps_;
  std::vector<torch::Tensor> gathered_exp_avgs_, gathered_exp_avg_sqs_, gathered_steps_;
};

// The state these options keep per parameter element, in fp32 elements: SGD's momentum buffer (none at
// momentum 0), AdamW's two moments. (AdamW's step counters, one scalar per tensor, are left out.)
int state_per_parameter(const OptimizerOptions& options);

// The fused optimizer these options name, over `params`.
std::unique_ptr<Optimizer> make_optimizer(const OptimizerOptions& options, std::vector<torch::Tensor> params);

}  // namespace ampbench::optim
