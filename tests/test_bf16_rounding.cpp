// Stochastic rounding into bf16 as a rounding, and the pure bf16 optimizers' three ways of storing an update.
#include <cmath>

#include <gtest/gtest.h>
#include <torch/torch.h>

#include "optim/bf16_rounding.h"
#include "optim/optimizer.h"

namespace {

using ampbench::optim::WeightRounding;

// bf16's two neighbours of each fp32 value: the one toward zero (its high half) and the next away from zero.
std::pair<torch::Tensor, torch::Tensor> neighbours(const torch::Tensor& fp32) {
  const auto bits = fp32.view(torch::kInt32);
  const auto toward = bits.bitwise_and(static_cast<int32_t>(0xFFFF0000));
  return {toward.view(torch::kFloat32), (toward + 0x10000).view(torch::kFloat32)};
}

torch::Tensor rounded(const torch::Tensor& fp32, uint64_t seed) {
  auto generator = ampbench::optim::seeded_generator(torch::kCPU, seed);
  return ampbench::optim::round_stochastically_to_bf16(fp32, generator).to(torch::kFloat32);
}

}  // namespace

TEST(StochasticRounding, GivesOneOfTheTwoBf16NeighboursAndKeepsExactValues) {
  torch::manual_seed(0);
  const auto values = torch::randn({100000}) * torch::pow(10.0, torch::randint(-20, 20, {100000}));
  const auto out = rounded(values, 1);
  const auto [toward, away] = neighbours(values);
  EXPECT_TRUE(out.eq(toward).logical_or(out.eq(away)).all().item<bool>());
  // Both neighbours occur: it is not a truncation nor round-to-nearest in disguise.
  EXPECT_GT(out.eq(away).logical_and(values.ne(toward)).sum().item<int64_t>(), 10000);
  EXPECT_GT(out.eq(toward).logical_and(values.ne(toward)).sum().item<int64_t>(), 10000);
  const auto exact = values.to(torch::kBFloat16).to(torch::kFloat32);
  EXPECT_TRUE(rounded(exact, 2).equal(exact));
  const auto special = torch::tensor({INFINITY, -INFINITY, NAN, 0.0f, -0.0f});
  const auto special_out = rounded(special, 3);
  EXPECT_TRUE(special_out.isinf()[0].item<bool>() && special_out[0].item<float>() > 0);
  EXPECT_TRUE(special_out.isinf()[1].item<bool>() && special_out[1].item<float>() < 0);
  EXPECT_TRUE(std::isnan(special_out[2].item<float>()));
  EXPECT_EQ(special_out[3].item<float>(), 0.0f);
}

TEST(StochasticRounding, IsUnbiasedForAValueBetweenTwoNeighbours) {
  // 1 + 0.3 ulp and -(4 + 0.85 ulp): the mean of many roundings converges to the value itself.
  for (double value : {1.0 + 0.3 * std::ldexp(1.0, -7), -(4.0 + 0.85 * std::ldexp(1.0, -5))}) {
    const int64_t n = 400000;
    const auto values = torch::full({n}, value, torch::kFloat32);
    const auto [toward, away] = neighbours(values.narrow(0, 0, 1));
    const double gap = std::abs(away.item<double>() - toward.item<double>());
    const double p = std::abs(value - toward.item<double>()) / gap;  // the chance of rounding away from zero
    const double mean = rounded(values, 7).to(torch::kFloat64).mean().item<double>();
    // Rounding away is Bernoulli(p): the mean is within 5 standard errors of the value.
    EXPECT_NEAR(mean, value, 5 * gap * std::sqrt(p * (1 - p) / double(n))) << value;
  }
}

TEST(StochasticRounding, RepeatsForASeedAndDiffersForAnother) {
  torch::manual_seed(5);
  const auto values = torch::randn({4096});
  EXPECT_TRUE(rounded(values, 11).equal(rounded(values, 11)));
  EXPECT_FALSE(rounded(values, 11).equal(rounded(values, 12)));
}

namespace {

// A bf16 weight of 1 and SGD updates of a tenth of its half-ulp: round to nearest loses every one of them.
struct Stagnation {
  explicit Stagnation(WeightRounding rounding)
      : weight(torch::ones({20000}, torch::kBFloat16).requires_grad_()),
        optimizer({weight}, ampbench::optim::SgdOptions().lr(1.0).momentum(0.0).weight_decay(0.0),
                  ampbench::optim::RoundingOptions().rounding(rounding).seed(3)) {}

  // `steps` updates of -delta each; returns the final weights in fp32 (plus compensation under Kahan).
  torch::Tensor run(int steps, double delta, ampbench::optim::UpdateCount* count = nullptr) {
    for (int i = 0; i < steps; ++i) {
      weight.mutable_grad() = torch::full_like(weight, delta);
      if (count) optimizer.count_next_step(*count);
      optimizer.step();
      optimizer.zero_grad();
    }
    auto out = weight.detach().to(torch::kFloat32);
    if (!optimizer.compensation().empty()) out += optimizer.compensation()[0].to(torch::kFloat32);
    return out;
  }

  torch::Tensor weight;
  ampbench::optim::FusedSgd optimizer;
};

ampbench::optim::UpdateCount zero_count() { return ampbench::optim::UpdateCount::zeros(torch::kCPU); }

}  // namespace

TEST(PureBf16Updates, NearestLosesUpdatesBelowHalfAnUlpWhereStochasticAndKahanKeepThem) {
  const double half_ulp_below_one = std::ldexp(1.0, -9);  // 1 - 2^-8 is the neighbour below 1
  // A tenth of that, as the bf16 gradient holds it.
  const double delta = torch::tensor(0.1 * half_ulp_below_one).to(torch::kBFloat16).item<double>();
  const int steps = 200;
  const double expected = 1.0 - steps * delta;

  auto nearest_count = zero_count(), stochastic_count = zero_count();
  const auto nearest = Stagnation(WeightRounding::nearest).run(steps, delta, &nearest_count);
  EXPECT_TRUE(nearest.eq(1.0f).all().item<bool>());  // every update lost
  EXPECT_EQ(nearest_count.lost.item<int64_t>(), nearest_count.moved.item<int64_t>());
  EXPECT_EQ(nearest_count.moved.item<int64_t>(), int64_t(steps) * 20000);
  EXPECT_EQ(nearest_count.taken.item<double>(), 0.0);  // none of the updates' magnitude reached the weights

  const auto stochastic = Stagnation(WeightRounding::stochastic).run(steps, delta, &stochastic_count);
  EXPECT_NEAR(stochastic.mean().item<double>(), expected, 2e-4);  // unbiased over 20000 weights
  // Each step rounds down with the probability of delta over the gap: about 1 in 10 moves, the rest are lost.
  const double lost_share =
      double(stochastic_count.lost.item<int64_t>()) / double(stochastic_count.moved.item<int64_t>());
  EXPECT_GT(lost_share, 0.8);
  EXPECT_LT(lost_share, 0.97);
  // But what the roundings up took makes good, on average, the magnitude the others lost.
  const double taken = stochastic_count.taken.item<double>() / stochastic_count.wanted.item<double>();
  EXPECT_NEAR(taken, 1.0, 0.02);

  auto kahan_count = zero_count();
  const auto kahan = Stagnation(WeightRounding::kahan).run(steps, delta, &kahan_count);
  // Weight + compensation track the exact sum, up to the bf16 compensation's own rounding: at most a
  // quarter ulp of it (2^-18 here) a step.
  const double compensation_error = steps * std::ldexp(1.0, -18);
  EXPECT_LT((kahan - expected).abs().max().item<double>(), compensation_error);
  EXPECT_LT(std::abs(kahan.mean().item<double>() - expected), (1.0 - expected) / 50);
  EXPECT_EQ(kahan_count.lost.item<int64_t>(), 0);
}

TEST(PureBf16Updates, KeepTheWeightsInBf16NearFp32sPath) {
  for (auto rounding : {WeightRounding::nearest, WeightRounding::stochastic, WeightRounding::kahan}) {
    torch::manual_seed(1);
    auto weight = torch::randn({64}).to(torch::kBFloat16).requires_grad_();
    auto reference = weight.detach().to(torch::kFloat32).requires_grad_();
    const auto options = ampbench::optim::AdamWOptions().lr(1e-2);
    ampbench::optim::FusedAdamW pure({weight}, options,
                                     ampbench::optim::RoundingOptions().rounding(rounding));
    ampbench::optim::FusedAdamW fp32({reference}, options);
    for (int step = 0; step < 300; ++step) {
      const auto gradient = torch::randn({64});
      weight.mutable_grad() = gradient.to(torch::kBFloat16);
      reference.mutable_grad() = gradient.to(torch::kBFloat16).to(torch::kFloat32);
      pure.step();
      fp32.step();
    }
    EXPECT_EQ(weight.scalar_type(), torch::kBFloat16);
    // 300 steps of lr 1e-2 from the same start: each weight moved about 1, and bf16 storage keeps the
    // weights within a few percent of that from fp32's on average.
    const auto gap = (weight.detach().to(torch::kFloat32) - reference.detach()).abs().mean().item<double>();
    EXPECT_LT(gap, 0.06) << static_cast<int>(rounding);
  }
}

TEST(PureBf16Updates, ASlicedParameterStepsAsOneAndCountsItsStepOnce) {
  // 3 slices of 4096 elements and a rest: Kahan's weight + compensation must follow fp32 AdamW, whose
  // bias correction would be off if a slice counted the step again (0.58x the first update at 4 counts).
  torch::manual_seed(2);
  auto weight = torch::randn({3 * 4096 + 5}).to(torch::kBFloat16).requires_grad_();
  auto reference = weight.detach().to(torch::kFloat32).requires_grad_();
  const auto options = ampbench::optim::AdamWOptions().lr(1e-3);
  ampbench::optim::FusedAdamW kahan({weight}, options,
                                    ampbench::optim::RoundingOptions().rounding(WeightRounding::kahan));
  ampbench::optim::FusedAdamW fp32({reference}, options);
  for (int step = 0; step < 5; ++step) {
    const auto gradient = torch::randn_like(reference).to(torch::kBFloat16);
    weight.mutable_grad() = gradient;
    reference.mutable_grad() = gradient.to(torch::kFloat32);
    kahan.step();
    fp32.step();
  }
  const auto held = weight.detach().to(torch::kFloat32) + kahan.compensation()[0].to(torch::kFloat32);
  EXPECT_LT((held - reference.detach()).abs().max().item<double>(), 5e-5);
}
