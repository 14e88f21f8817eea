// ampbench's stochastic rounding into bf16 against torchao's, in distribution: for each value, how often
// it is rounded away from zero over many draws (the two draw different random bits, so the bits differ).
#include <cmath>

#include <gtest/gtest.h>
#include <torch/torch.h>

#include "optim/bf16_rounding.h"
#include "python_oracle.h"
#include "temp_dir_test.h"

namespace {

class StochasticRoundingParity : public ampbench::testing::TempDirTest {};

TEST_F(StochasticRoundingParity, RoundsAwayFromZeroAsOftenAsTorchaosForEachValue) {
  // Values at known fractions of the gap between their bf16 neighbours, of both signs and several binades,
  // and random ones.
  torch::manual_seed(3);
  const auto fractions = torch::tensor({0.0, 1.0 / 65536, 0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.99});
  std::vector<torch::Tensor> parts;
  for (double base : {1.0, -3.0, 1e-20, -7e12}) {
    const auto low = torch::full({fractions.size(0)}, base, torch::kFloat32);
    const auto bits = low.view(torch::kInt32).bitwise_and(static_cast<int32_t>(0xFFFF0000));
    parts.push_back((bits + (fractions * 65536).to(torch::kInt32)).view(torch::kFloat32));
  }
  parts.push_back(torch::randn({24}) * 100);
  const auto values = torch::cat(parts);
  c10::Dict<std::string, torch::Tensor> saved;
  saved.insert("values", values);
  ampbench::testing::write_tensors(saved, dir_ / "in.pt");
  ASSERT_NO_FATAL_FAILURE(ampbench::testing::run_oracle(
      "stochastic_rounding_oracle.py", (dir_ / "in.pt").string() + " " + (dir_ / "out.pt").string(),
      dir_ / "oracle.log"));
  if (IsSkipped()) return;
  const auto theirs = ampbench::testing::read_tensors(dir_ / "out.pt");
  const auto torchao_away = theirs.at("away").toTensor().to(torch::kFloat64);
  const int64_t draws = theirs.at("draws").toTensor().item<int64_t>();

  auto generator = ampbench::optim::seeded_generator(torch::kCPU, 1);
  const auto toward_zero =
      values.view(torch::kInt32).bitwise_and(static_cast<int32_t>(0xFFFF0000)).view(torch::kFloat32);
  auto ours_away = torch::zeros({values.size(0)}, torch::kFloat64);
  for (int64_t i = 0; i < draws; ++i) {
    const auto rounded = ampbench::optim::round_stochastically_to_bf16(values, generator).to(torch::kFloat32);
    ours_away += rounded.ne(toward_zero).to(torch::kFloat64);
  }
  // Each count is Binomial(draws, p) with the same p if the two agree: their difference is within five
  // standard deviations of zero (and exactly zero where p is 0).
  const auto p = (ours_away + torchao_away) / double(2 * draws);
  const auto bound = 5 * torch::sqrt(2 * double(draws) * p * (1 - p)) + 1e-9;
  const auto gap = (ours_away - torchao_away).abs();
  for (int64_t i = 0; i < values.size(0); ++i) {
    EXPECT_LE(gap[i].item<double>(), bound[i].item<double>())
        << "value " << values[i].item<float>() << ": ours " << ours_away[i].item<double>() << ", torchao's "
        << torchao_away[i].item<double>() << " of " << draws;
  }
}

}  // namespace
