#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <vector>

#include <torch/torch.h>

namespace ampbench::measure {

// Times the steps of one epoch without syncing the host with the device inside the loop:
//   start();  [work; step_done();] x steps;  synchronize the device;  read()
// On the CPU, whose ops are synchronous, a step ends when its work returns: a host clock read. On an
// accelerator, whose work the host only queues, each mark records an event on the current stream and
// read() takes the device-side times between them.
class StepTimer {
 public:
  virtual ~StepTimer() = default;
  virtual void start() = 0;
  virtual void step_done() = 0;
  // Seconds per step since start(); only after the device has finished the epoch's work.
  virtual std::vector<double> read() = 0;
};

// `max_steps` bounds the marks per epoch, so that no event or buffer is created inside the loop.
std::unique_ptr<StepTimer> make_step_timer(const torch::Device& device, int64_t max_steps);

}  // namespace ampbench::measure
