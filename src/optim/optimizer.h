#pragma once

#include <map>
#include <memory>
#include <optional>
#include <variant>
#include <vector>

#include <ATen/core/Generator.h>
#include <torch/torch.h>

#include "optim/optimizer_options.h"
#include "optim/weight_rounding.h"

namespace ampbench::optim {

// What rounding did to bf16 weight updates, summed on the device over the steps counted (read after them).
// An element's update u is its exact (fp32) new weight minus its old one (weight plus compensation).
struct UpdateCount {
  torch::Tensor moved;  // int64: elements with u != 0
  torch::Tensor lost;   // int64: of those, the elements whose stored weight (and compensation) did not change
  torch::Tensor wanted;  // fp64: the sum of |u|
  torch::Tensor taken;   // fp64: the sum of sign(u) times what the stored weight (and compensation) moved
  // Set by the caller for each bf16 parameter's sum of u^2 (fp64), keyed by the parameter's TensorImpl: the
  // update as the optimizer computed it in fp32, before rounding stored it.
  bool per_parameter = false;
  std::map<const c10::TensorImpl*, torch::Tensor> update_squares{};
  // Zeros on `device`.
  static UpdateCount zeros(const torch::Device& device);
};

// An optimizer over one device's fp32 or bf16 parameters, stepped by LibTorch's fused multi-tensor kernels.
// step() takes GradScaler's found_inf tensor and skips the update on the device when it is non-zero,
// so skipping an fp16 step needs no host sync (the same path torch.amp.GradScaler uses for fused
// optimizers). bf16 parameters keep bf16 state and are updated by the fused kernel over all of them when
// rounding to nearest (if a check step finds that the kernel updates bf16 weights at all); stochastic
// rounding and Kahan summation need the update's fp32 result, so there the fused kernel runs a slice of a
// parameter at a time on fp32 working copies of it, its gradient and its state, whose result is rounded into
// the bf16 tensors (transient memory: one slice's fp32 copies).
class Optimizer {
 public:
  Optimizer(std::vector<torch::Tensor> params, WeightRounding rounding, uint64_t seed);
  virtual ~Optimizer() = default;
  Optimizer(const Optimizer&) = delete;
  Optimizer& operator=(const Optimizer&) = delete;

  const std::vector<torch::Tensor>& params() const { return params_; }
  // The gradients of the parameters that have one, in parameter order: gathered afresh at each call
  // into a vector kept between calls (valid until the next call).
  const std::vector<torch::Tensor>& grads();
  void step(const std::optional<torch::Tensor>& found_inf = std::nullopt);
  // Drops the gradients (set to none, as PyTorch does by default), so their memory is free for the next
  // backward.
  void zero_grad();
  // The next step adds what rounding did to its bf16 weights into `count` (through the per-parameter
  // path, whatever the rounding), then stops counting. For an untimed audit, never a timed step.
  void count_next_step(UpdateCount& count) { count_ = &count; }
  // Kahan summation's compensation buffers, one per parameter (empty under other roundings).
  const std::vector<torch::Tensor>& compensation() const { return compensation_; }
  // Steps a zero bf16 tensor by a gradient of ones through the fused kernel (with no momentum and fresh
  // state: a probe of the kernel, not of this optimizer's settings) and records whether every element moved.
  // A training step calls it once, outside any timed step (it syncs); otherwise the first step() does, and
  // an optimizer that never steps (a holder of gradients) never checks. Finds nothing to check without bf16
  // parameters.
  void check_fused_kernel_on_bf16();
  // False when the check found the fused kernel leaving bf16 weights unchanged (LibTorch 2.12-2.13's CPU
  // fused SGD skips every full SIMD block of a reduced-precision tensor): bf16 weights are then stepped
  // through fp32 working copies, whatever the rounding.
  bool fused_kernel_updates_bf16() const { return fused_updates_bf16_.value_or(true); }
  // "fused SGD", "fused AdamW": what the reports call the kernel.
  virtual std::string_view kernel_name() const = 0;

 protected:
  // Every per-parameter state list of the subclass (momentum, moments, step counters), each aligned with
  // params(); the base class gathers them for the parameters that have gradients.
  void set_state(std::vector<std::vector<torch::Tensor>> state) { state_ = std::move(state); }
  // One step of the fused kernel on `probe` from fresh state, no momentum, no weight decay.
  virtual void probe_step(const torch::Tensor& probe, const torch::Tensor& grad) = 0;
  // The subclass's fused kernel over these parameters, gradients and gathered state lists.
  virtual void fused_step(const std::vector<torch::Tensor>& params, const std::vector<torch::Tensor>& grads,
                          const std::vector<std::vector<torch::Tensor>>& state,
                          const std::optional<torch::Tensor>& found_inf) = 0;

 private:
  // The parameters that have a gradient, their gradients, their indices into params() and their state:
  // what a fused kernel takes.
  struct GradBatch {
    std::vector<size_t> indices;
    std::vector<torch::Tensor> params, grads;
    std::vector<std::vector<torch::Tensor>> state;
  };
  // Refills the batch in place, so that a step allocates no host memory for it while the same parameters
  // have gradients (a parameter may have none, as in PyTorch's optimizers).
  const GradBatch& gather_grads();
  // A run of a parameter's elements in memory order, with its gradient's, state's and compensation's
  // (a scalar state, AdamW's step counter, whole): what one round of fp32 working copies covers.
  struct Slice {
    torch::Tensor weight, grad;
    std::vector<torch::Tensor> state;
    torch::Tensor compensation;        // undefined but under Kahan summation
    const c10::TensorImpl* parameter;  // the whole parameter's
  };
  // The update of the batch's i-th parameter computed on fp32 working copies, a slice at a time, and
  // rounded into it.
  void step_through_fp32(const GradBatch& batch, size_t i, const std::optional<torch::Tensor>& found_inf);
  // The batch's i-th parameter in slices of at most slice_elements_ elements (views; scalar state cloned).
  std::vector<Slice> slices_of(const GradBatch& batch, size_t i) const;
  void step_slice(Slice& slice, const std::optional<torch::Tensor>& found_inf);
  // Stores `exact`, the updated weight in fp32, into the slice's bf16 weight by the rounding.
  void store(Slice& slice, const torch::Tensor& exact);
  // The weight as the optimizer holds it, in fp32: the bf16 weight plus its compensation.
  torch::Tensor held(const Slice& slice) const;
  // store(), adding what it did to the slice's update into count_. `before` is held() before the step.
  void store_counted(Slice& slice, const torch::Tensor& exact, const torch::Tensor& before);

  // The working copies' bound: a 64th of the model's elements (their fp32 copies a few percent of the bf16
  // static memory), so that the step's transient memory does not undo what pure bf16 saves.
  static constexpr int64_t kSlicesPerModel = 64;
  static constexpr int64_t kMinSliceElements = 4096;

  std::vector<torch::Tensor> params_;
  WeightRounding rounding_;
  std::vector<std::vector<torch::Tensor>> state_;
  std::vector<torch::Tensor> compensation_;
  std::optional<at::Generator> generator_;
  GradBatch batch_;
  std::vector<size_t> indices_scratch_;
  UpdateCount* count_ = nullptr;
  int64_t slice_elements_ = kMinSliceElements;
  std::optional<bool> fused_updates_bf16_;  // unset until checked
};

class FusedSgd final : public Optimizer {
 public:
  FusedSgd(std::vector<torch::Tensor> params, SgdOptions options, RoundingOptions rounding = {});
  std::string_view kernel_name() const override { return "fused SGD"; }

 private:
  void probe_step(const torch::Tensor& probe, const torch::Tensor& grad) override;
  void fused_step(const std::vector<torch::Tensor>& params, const std::vector<torch::Tensor>& grads,
                  const std::vector<std::vector<torch::Tensor>>& state,
                  const std::optional<torch::Tensor>& found_inf) override;

  SgdOptions options_;
};

class FusedAdamW final : public Optimizer {
 public:
  FusedAdamW(std::vector<torch::Tensor> params, AdamWOptions options, RoundingOptions rounding = {});
  std::string_view kernel_name() const override { return "fused AdamW"; }

 private:
  void probe_step(const torch::Tensor& probe, const torch::Tensor& grad) override;
  void fused_step(const std::vector<torch::Tensor>& params, const std::vector<torch::Tensor>& grads,
                  const std::vector<std::vector<torch::Tensor>>& state,
                  const std::optional<torch::Tensor>& found_inf) override;

  AdamWOptions options_;
};

// The state these options keep per parameter element, in the parameters' elements: SGD's momentum buffer
// (none at momentum 0), AdamW's two moments. (AdamW's step counters, one scalar per tensor, are left out.)
int state_per_parameter(const OptimizerOptions& options);

// The fused optimizer these options name, over `params`.
std::unique_ptr<Optimizer> make_optimizer(const OptimizerOptions& options, std::vector<torch::Tensor> params,
                                          RoundingOptions rounding = {});

}  // namespace ampbench::optim
