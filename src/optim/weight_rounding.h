#pragma once

namespace ampbench::optim {

// How an optimizer rounds the fp32 result of a bf16 weight's update back into bf16: to nearest (the fused
// kernel's own store), stochastically (unbiased: away from zero with the probability of the distance from
// the neighbour toward zero, in units of their gap), or to nearest with a bf16 compensation buffer per
// parameter that carries what rounding lost into the next update (Kahan summation). fp32 weights are
// stored as fp32 arithmetic rounds, whatever this says.
enum class WeightRounding { nearest, stochastic, kahan };

}  // namespace ampbench::optim
