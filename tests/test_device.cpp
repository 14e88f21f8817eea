#include <ATen/DeviceAccelerator.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include "measure/device.h"
#include "measure/host_sync_check.h"
#include "util/input_error.h"

using ampbench::util::InputError;

TEST(Device, ValidSpecsAreAutoCpuCudaAndCudaN) {
  for (const char* spec : {"auto", "cpu", "cuda", "cuda:0", "cuda:7", "cuda:255"})
    EXPECT_TRUE(ampbench::measure::is_valid_device_spec(spec)) << spec;
  for (const char* spec : {"", "gpu", "cuda:", "cuda:01", "cuda:-1", "cuda:1000", "CPU"})
    EXPECT_FALSE(ampbench::measure::is_valid_device_spec(spec)) << spec;
}

TEST(Device, AnUnavailableDeviceIsAnInputErrorWithoutALocation) {
  if (torch::cuda::is_available()) GTEST_SKIP() << "a CUDA GPU is visible";
  try {
    ampbench::measure::resolve_device("cuda");
    FAIL() << "cuda was accepted without a GPU";
  } catch (const InputError& e) {
    EXPECT_EQ(e.where(), "");  // the config layer adds /device
    EXPECT_NE(e.problem().find("cuda requested"), std::string::npos) << e.what();
  }
}

// torch::Device would wrap an index of 256 to 0 (an 8-bit index): ampbench refuses it by the GPUs there are.
TEST(Device, AnIndexPastTheVisibleGpusIsRefusedNotWrappedOnAGpu) {
  if (!torch::cuda::is_available()) GTEST_SKIP() << "no CUDA GPU";
  try {
    ampbench::measure::resolve_device("cuda:256");
    FAIL() << "cuda:256 was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("cuda:256 requested, but only "), std::string::npos) << e.what();
  }
}

// The run's GPU becomes the current one: LibTorch's defaults (profiler, library handles) follow it.
TEST(Device, TheRunsGpuBecomesTheCurrentDeviceOnAGpu) {
  if (!torch::cuda::is_available()) GTEST_SKIP() << "no CUDA GPU";
  const auto last = static_cast<c10::DeviceIndex>(torch::cuda::device_count() - 1);
  ampbench::measure::make_current(torch::Device(torch::kCUDA, last));
  EXPECT_EQ(at::accelerator::getDeviceIndex(), last);
  ampbench::measure::make_current(torch::Device(torch::kCUDA, 0));
  EXPECT_EQ(at::accelerator::getDeviceIndex(), 0);
}

TEST(Device, MakingTheCpuCurrentChangesNothing) {
  EXPECT_NO_THROW(ampbench::measure::make_current(torch::kCPU));
}

namespace {
float item_on(const torch::Device& device) { return torch::ones({1}, device).sum().item<float>(); }
}  // namespace

// The check is asked for by its variable, and there is nothing to check on the CPU.
TEST(HostSyncCheck, IsAskedForByItsVariableAndLeavesTheCpuAlone) {
  unsetenv(ampbench::measure::kForbidHostSyncVariable);
  EXPECT_FALSE(ampbench::measure::host_sync_check_requested());
  setenv(ampbench::measure::kForbidHostSyncVariable, "1", 1);
  EXPECT_TRUE(ampbench::measure::host_sync_check_requested());
  const ampbench::measure::HostSyncCheck check(torch::kCPU, ampbench::measure::host_sync_check_requested());
  EXPECT_FALSE(check.active());
  EXPECT_EQ(item_on(torch::kCPU), 1.0f);
  unsetenv(ampbench::measure::kForbidHostSyncVariable);
}

TEST(HostSyncCheck, ASyncUnderItIsAnErrorOnAGpu) {
  if (!torch::cuda::is_available()) GTEST_SKIP() << "no CUDA GPU";
  setenv(ampbench::measure::kForbidHostSyncVariable, "1", 1);
  const torch::Device cuda(torch::kCUDA, 0);
  {
    const ampbench::measure::HostSyncCheck check(cuda, ampbench::measure::host_sync_check_requested());
    EXPECT_TRUE(check.active());
    EXPECT_THROW(item_on(cuda), c10::Error);
  }
  EXPECT_EQ(item_on(cuda), 1.0f);  // the previous mode is back
  unsetenv(ampbench::measure::kForbidHostSyncVariable);
}
