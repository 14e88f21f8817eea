#pragma once

#include <cstdint>

#include <torch/torch.h>

#include "amp/grad_scaler_options.h"
#include "optim/optimizer.h"

namespace ampbench::amp {

// Dynamic loss scaling for fp16 training, faithful to torch.amp.GradScaler and built on the same
// LibTorch kernels (_amp_foreach_non_finite_check_and_unscale_, _amp_update_scale_). One iteration is:
//   scale(loss).backward();  [unscale_(opt); clip;]  step(opt);  update();
// The scale, the growth tracker and found_inf live on the device; nothing here syncs with the host
// except scale_value(), which is meant for after a timed region.
class GradScaler {
 public:
  GradScaler(GradScalerOptions options, const torch::Device& device);

  // loss * scale.
  torch::Tensor scale(const torch::Tensor& loss) const;
  // Divides the optimizer's gradients by the scale in place and records whether any is inf/NaN.
  // Throws std::logic_error when called twice between two update() calls, or after step().
  void unscale_(optim::Optimizer& optimizer);
  // Unscales if not done yet, then steps the optimizer unless a gradient was inf/NaN (decided on the
  // device). Throws std::logic_error when called twice between two update() calls.
  void step(optim::Optimizer& optimizer);
  // Backs the scale off after an inf/NaN, or grows it after growth_interval clean steps in a row.
  // Throws std::logic_error when no step() or unscale_() recorded an inf check since the last update.
  void update();

  const GradScalerOptions& options() const { return options_; }
  // 0-dim fp32 tensor on the device.
  const torch::Tensor& scale_tensor() const { return scale_; }
  // 0-dim fp32 tensor: 1 when the current iteration found an inf/NaN gradient (valid after unscale_).
  const torch::Tensor& found_inf() const { return found_inf_; }
  // fp32 [2]: the scale and found_inf side by side (the two tensors above are views of it), so that a
  // recorder copies both at once.
  const torch::Tensor& scale_and_found_inf() const { return scale_and_found_inf_; }
  // Reads the scale to the host (a sync): call it outside timed regions.
  double scale_value() const;
  int64_t growth_tracker_value() const;

 private:
  enum class Stage { ready, unscaled, stepped };

  GradScalerOptions options_;
  torch::Tensor scale_and_found_inf_;
  torch::Tensor scale_;
  torch::Tensor growth_tracker_;
  torch::Tensor found_inf_;
  // 1 / scale, taken in double (as torch.amp.GradScaler does) and rounded to fp32: kept between steps so
  // that computing it allocates nothing in the loop.
  torch::Tensor scale_fp64_;
  torch::Tensor inv_scale_;
  Stage stage_ = Stage::ready;
};

}  // namespace ampbench::amp
