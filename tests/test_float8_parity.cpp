// ampbench's float8 linear layer against torchao's Float8Linear (tests/parity/float8_oracle.py, torchao
// from .venv-cuda): the same bf16 input, fp32 weight and output gradient give the same output and
// gradients for both recipes. Without torchao these tests skip and say why.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include "amp/float8_linear.h"

#include "python_oracle.h"
#include "temp_dir_test.h"

namespace {

using ampbench::amp::LinearRecipe;

// Signal-to-quantization-noise ratio in dB, to say how far apart a failure is.
double sqnr(const torch::Tensor& reference, const torch::Tensor& x) {
  const auto r = reference.to(torch::kDouble), d = (reference - x).to(torch::kDouble);
  return 20 * std::log10(r.norm().item<double>() / std::max(d.norm().item<double>(), 1e-300));
}

class Float8Parity : public ampbench::testing::TempDirTest {
 protected:
  void SetUp() override {
    TempDirTest::SetUp();
    torch::manual_seed(4);
    input_ = (torch::randn({2, 32, 64}) * torch::logspace(-2, 2, 64)).to(torch::kBFloat16);
    weight_ = torch::randn({48, 64}) * 0.05;
    grad_output_ = (torch::randn({2, 32, 48}) * 1e-3).to(torch::kBFloat16);
    c10::Dict<std::string, torch::Tensor> saved;
    saved.insert("input", input_);
    saved.insert("weight", weight_);
    saved.insert("grad_output", grad_output_);
    ampbench::testing::write_tensors(saved, dir_ / "in.pt");
  }

  void expect_torchao_agrees(LinearRecipe recipe) {
    ASSERT_NO_FATAL_FAILURE(ampbench::testing::run_oracle(
        "float8_oracle.py", (dir_ / "in.pt").string() + " " + (dir_ / "out.pt").string(),
        dir_ / "oracle.log"));
    if (IsSkipped()) return;
    auto theirs = ampbench::testing::read_tensors(dir_ / "out.pt");
    const std::string prefix(ampbench::amp::to_string(recipe));
    auto x = input_.clone().requires_grad_(), w = weight_.clone().requires_grad_();
    auto y = ampbench::amp::float8_matmul(x, w, {recipe});
    y.backward(grad_output_);
    const std::pair<const char*, torch::Tensor> ours[] = {
        {"output", y.detach()}, {"grad_input", x.grad()}, {"grad_weight", w.grad()}};
    for (const auto& [name, tensor] : ours) {
      SCOPED_TRACE(prefix + "/" + name);
      const auto reference = theirs.at(prefix + "/" + name).toTensor();
      ASSERT_EQ(tensor.sizes(), reference.sizes());
      ASSERT_EQ(tensor.scalar_type(), reference.scalar_type());
      // The same casts and products on the same kernels give the same bits: asked exactly.
      EXPECT_TRUE(tensor.equal(reference))
          << "largest difference " << (tensor - reference).abs().max().item<double>() << ", SQNR "
          << sqnr(reference, tensor) << " dB";
    }
  }

  torch::Tensor input_, weight_, grad_output_;
};

TEST_F(Float8Parity, TensorwiseGivesTorchaosOutputAndGradients) {
  expect_torchao_agrees(LinearRecipe::tensorwise);
}

TEST_F(Float8Parity, RowwiseGivesTorchaosOutputAndGradients) { expect_torchao_agrees(LinearRecipe::rowwise); }

}  // namespace
