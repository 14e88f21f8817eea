#include "train/per_step_buffer.h"

#include <cstring>
#include <vector>

namespace ampbench::train {

PerStepBuffer::PerStepBuffer(const torch::Device& device, int64_t steps, at::IntArrayRef row_shape,
                             float fill)
    : steps_(steps) {
  TORCH_CHECK(steps > 0, "PerStepBuffer needs at least one step, got ", steps);
  std::vector<int64_t> shape{steps};
  shape.insert(shape.end(), row_shape.begin(), row_shape.end());
  values_ = torch::full(shape, fill, torch::TensorOptions().device(device).dtype(torch::kFloat32));
  row_view_ = values_.select(0, 0);
  if (device.is_cpu()) host_rows_ = values_.data_ptr<float>();
}

void PerStepBuffer::write(int64_t step, const torch::Tensor& value) {
  TORCH_CHECK(step >= 0 && step < steps_, "PerStepBuffer: step ", step, " is outside [0, ", steps_, ")");
  TORCH_CHECK(value.sizes() == row_view_.sizes(), "PerStepBuffer: a value of shape ", value.sizes(),
              " for rows of shape ", row_view_.sizes());
  const int64_t row_numel = row_view_.numel();
  if (host_rows_ && value.is_cpu() && value.scalar_type() == torch::kFloat32 && value.is_contiguous()) {
    std::memcpy(host_rows_ + step * row_numel, value.const_data_ptr<float>(), row_numel * sizeof(float));
    return;
  }
  torch::NoGradGuard no_grad;  // a plain copy of the value, cheaper than a detach()
  row_view_.unsafeGetTensorImpl()->set_storage_offset(step * row_numel);
  row_view_.copy_(value);
}

}  // namespace ampbench::train
