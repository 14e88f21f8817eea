#include <gtest/gtest.h>
#include <torch/torch.h>

#include "train/per_step_buffer.h"

namespace {

// Rows written out of order, with fp32 values (the CPU's plain store) and fp64 ones (the copy through
// the moving row view, the path every write takes on a GPU), land each in its own row.
void expect_each_write_in_its_own_row(const torch::Device& device) {
  ampbench::train::PerStepBuffer buffer(device, 5, {2}, -1.0f);
  auto on = torch::TensorOptions().device(device);
  buffer.write(3, torch::tensor({4.0f, -4.0f}, on));
  buffer.write(0, torch::tensor({1.0, -1.0}, on.dtype(torch::kFloat64)));
  buffer.write(4, torch::tensor({5.0f, -5.0f}, on));
  buffer.write(1, torch::tensor({2.0, -2.0}, on.dtype(torch::kFloat64)));
  auto expected = torch::tensor({{1.0f, -1.0f}, {2.0f, -2.0f}, {-1.0f, -1.0f}, {4.0f, -4.0f}, {5.0f, -5.0f}});
  EXPECT_TRUE(torch::equal(buffer.values().cpu(), expected)) << buffer.values();
  EXPECT_THROW(buffer.write(5, torch::zeros({2}, on)), c10::Error);
  EXPECT_THROW(buffer.write(-1, torch::zeros({2}, on)), c10::Error);
  EXPECT_THROW(buffer.write(2, torch::zeros({2, 1}, on)), c10::Error);  // same count, another shape
  // Scalar rows, written from a value that requires grad, as the training loss is.
  ampbench::train::PerStepBuffer losses(device, 3, {}, 0.0f);
  auto weight = torch::ones({}, on.requires_grad(true));
  losses.write(1, weight * 7.0f);
  losses.write(2, (weight * 9.0).to(torch::kFloat64));
  EXPECT_TRUE(torch::equal(losses.values().cpu(), torch::tensor({0.0f, 7.0f, 9.0f}))) << losses.values();
  losses.fill(0.5f);
  EXPECT_TRUE(torch::equal(losses.values().cpu(), torch::full({3}, 0.5f)));
}

}  // namespace

TEST(PerStepBuffer, EachWriteLandsInItsOwnRowAndNowhereElse) {
  expect_each_write_in_its_own_row(torch::kCPU);
}

TEST(PerStepBuffer, EachWriteLandsInItsOwnRowOnAGpu) {
  if (!torch::cuda::is_available()) GTEST_SKIP() << "no CUDA GPU";
  expect_each_write_in_its_own_row(torch::kCUDA);
}
