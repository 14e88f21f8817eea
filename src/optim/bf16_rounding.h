#pragma once

#include <ATen/core/Generator.h>
#include <torch/torch.h>

namespace ampbench::optim {

// fp32 values rounded stochastically into bf16: each value becomes one of its two bf16 neighbours (itself
// when it is one), the one away from zero with the probability of its distance from the one toward zero
// in units of their gap, so the rounding is unbiased. The bits below bf16's 16 are compared with 16 random
// bits drawn from `generator` (torchao's _fp32_to_bf16_sr, written as one addition: the carry out of the
// low half happens with exactly that probability). Non-finite values keep their class; a value whose
// rounding away from zero would pass bf16's largest finite value does so only as fp32's would.
torch::Tensor round_stochastically_to_bf16(const torch::Tensor& fp32, at::Generator& generator);

// A generator of `device`'s kind (the CPU's or CUDA's Philox), seeded: stochastic rounding draws from it so
// a run repeats, and it draws nothing from the global generators that dropout and initialisation use.
at::Generator seeded_generator(const torch::Device& device, uint64_t seed);

}  // namespace ampbench::optim
