// The numerics observer counts the fp16 tensors that backward produces, at the loss scale in force, and what
// dividing them by that scale would have flushed: a planted layer whose activation gradient underflows at a
// scale of 1 and not at 2^16 shows it at both.
#include <cmath>
#include <optional>

#include <gtest/gtest.h>
#include <torch/torch.h>

#include "amp/autocast_scope.h"
#include "numerics/op_sites.h"
#include "numerics/phase.h"
#include "numerics/range_observer.h"

namespace {

using ampbench::numerics::LayerRanges;
using NumericsPhase = ampbench::numerics::Phase;

// Every element of the layer's output gets the gradient 1e-9 times the scale: below fp16's least subnormal
// (about 6e-8) unscaled, a normal number (about 6.6e-5) at 2^16.
constexpr double kGradient = 1e-9;

const LayerRanges& layer_named(const std::vector<LayerRanges>& layers, const std::string& name) {
  for (const auto& l : layers) {
    if (l.layer == name) return l;
  }
  throw std::runtime_error("no layer " + name);
}

// One fp16 autocast forward of a planted linear layer and a backward of its output's sum times the
// gradient and the scale, observed.
std::vector<LayerRanges> observe_step(double scale) {
  torch::manual_seed(0);
  torch::nn::Sequential model(torch::nn::Linear(8, 8));
  const auto inputs = torch::randn({4, 8});
  ampbench::numerics::RangeObserver observer(ampbench::numerics::named_parameters(*model), torch::kHalf,
                                             scale);
  torch::Tensor loss;
  {
    ampbench::amp::AutocastScope autocast(torch::kCPU, torch::kHalf);
    ampbench::numerics::mark_phase(NumericsPhase::forward);
    const auto outputs = model->forward(inputs);
    ampbench::numerics::mark_phase(NumericsPhase::loss);
    loss = outputs.to(torch::kFloat).sum() * (kGradient * scale);
  }
  ampbench::numerics::mark_phase(NumericsPhase::backward);
  loss.backward();
  ampbench::numerics::mark_phase(NumericsPhase::forward);
  return observer.layers();
}

TEST(RangeObserver, AGradientThatUnderflowsWithoutTheLossScaleIsCountedFromBackwardsFp16Tensors) {
  const auto scaled = layer_named(observe_step(std::ldexp(1.0, 16)), "(loss)").backward;
  // At 2^16 the output's fp16 gradient (32 elements) is normal; divided by the scale, every element flushes.
  ASSERT_EQ(scaled.elements, 32);
  EXPECT_EQ(scaled.nonzero, 32);
  EXPECT_EQ(scaled.subnormal, 0);
  EXPECT_EQ(scaled.flushed_unscaled, 32);
  EXPECT_EQ(scaled.subnormal_unscaled, 0);
  // The layer's own backward results (its weight and bias gradients in fp16, before the cast back to the fp32
  // master weights) are sums of 4 such elements times the inputs: without the scale, they underflow too.
  const auto layer = layer_named(observe_step(std::ldexp(1.0, 16)), "0").backward;
  EXPECT_GT(layer.nonzero, 0);
  EXPECT_GT(layer.flushed_unscaled + layer.subnormal_unscaled, 0);
}

TEST(RangeObserver, AtAScaleOfOneTheSameGradientIsAlreadyZeroInBackward) {
  const auto unscaled = layer_named(observe_step(1.0), "(loss)").backward;
  // fp16 flushed it in backward itself: the elements are there, none of them nonzero.
  ASSERT_EQ(unscaled.elements, 32);
  EXPECT_EQ(unscaled.nonzero, 0);
  EXPECT_EQ(unscaled.flushed_unscaled, 0);
}

TEST(RangeObserver, WithoutALossScaleNothingIsCountedAsUnscaled) {
  torch::manual_seed(0);
  torch::nn::Sequential model(torch::nn::Linear(8, 8));
  ampbench::numerics::RangeObserver observer(ampbench::numerics::named_parameters(*model), torch::kHalf);
  torch::Tensor loss;
  {
    ampbench::amp::AutocastScope autocast(torch::kCPU, torch::kHalf);
    loss = model->forward(torch::randn({4, 8})).to(torch::kFloat).sum() * kGradient;
  }
  ampbench::numerics::mark_phase(NumericsPhase::backward);
  loss.backward();
  ampbench::numerics::mark_phase(NumericsPhase::forward);
  for (const auto& l : observer.layers()) {
    EXPECT_EQ(l.backward.flushed_unscaled + l.backward.subnormal_unscaled, 0) << l.layer;
  }
}

}  // namespace
