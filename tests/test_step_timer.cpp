#include "measure/step_timer.h"

#include <chrono>
#include <numeric>
#include <thread>

#include <gtest/gtest.h>
#include <torch/torch.h>

#include "measure/device.h"

namespace {

using namespace std::chrono_literals;

TEST(StepTimer, OnTheCpuEachStepIsTheTimeSinceTheLastMark) {
  auto timer = ampbench::measure::make_step_timer(torch::kCPU, 3);
  for (int epoch = 0; epoch < 2; ++epoch) {  // a new start() begins a new epoch's steps
    timer->start();
    for (int step = 0; step < 3; ++step) {
      std::this_thread::sleep_for(2ms);
      timer->step_done();
    }
    auto seconds = timer->read();
    ASSERT_EQ(seconds.size(), 3u);
    for (double s : seconds) EXPECT_GE(s, 0.002);
  }
}

// Each step's time is the device's, between events; together they cannot exceed the host's time around
// the whole epoch. (Whether the events were created before timing is not visible from here.)
TEST(StepTimer, OnAGpuEachStepIsTheDevicesTimeBetweenEvents) {
  if (!torch::cuda::is_available()) GTEST_SKIP() << "no CUDA GPU";
  const auto device = ampbench::measure::resolve_device("cuda");
  auto a = torch::randn({2048, 2048}, torch::TensorOptions().device(device));
  auto timer = ampbench::measure::make_step_timer(device, 4);
  ampbench::measure::synchronize(device);
  const auto begin = std::chrono::steady_clock::now();
  timer->start();
  for (int step = 0; step < 4; ++step) {
    a = torch::mm(a, a).div_(2048.0);
    timer->step_done();
  }
  timer->step_done();  // one mark more than announced: left untimed, not an error
  ampbench::measure::synchronize(device);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
  auto seconds = timer->read();
  ASSERT_EQ(seconds.size(), 4u);
  for (double s : seconds) EXPECT_GT(s, 0.0);
  EXPECT_LE(std::accumulate(seconds.begin(), seconds.end(), 0.0), wall);
}

}  // namespace
