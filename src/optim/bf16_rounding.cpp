#include "optim/bf16_rounding.h"

#include <ATen/Context.h>

namespace ampbench::optim {

torch::Tensor round_stochastically_to_bf16(const torch::Tensor& fp32, at::Generator& generator) {
  TORCH_CHECK(fp32.scalar_type() == torch::kFloat32, "stochastic rounding takes fp32, got ",
              fp32.scalar_type());
  const auto bits = fp32.contiguous().view(torch::kInt32);
  const auto random = at::randint(0, 1 << 16, bits.sizes(), generator, bits.options());
  // A NaN or inf has all exponent bits set: adding to its low half could turn inf into NaN, so it is left.
  const auto rounded = (bits + random).bitwise_and_(static_cast<int32_t>(0xFFFF0000));
  const auto kept = at::where(fp32.isfinite(), rounded, bits);
  return kept.view(torch::kFloat32).to(torch::kBFloat16);  // exact: the low half is zero
}

at::Generator seeded_generator(const torch::Device& device, uint64_t seed) {
  auto generator = at::globalContext().defaultGenerator(device).clone();
  generator.set_current_seed(seed);
  return generator;
}

}  // namespace ampbench::optim
