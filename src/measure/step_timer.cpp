#include "measure/step_timer.h"

#include <c10/core/Event.h>
#include <c10/core/impl/VirtualGuardImpl.h>

namespace ampbench::measure {
namespace {

class HostStepTimer final : public StepTimer {
 public:
  explicit HostStepTimer(int64_t max_steps) { marks_.reserve(static_cast<size_t>(max_steps) + 1); }
  void start() override {
    marks_.clear();
    marks_.push_back(std::chrono::steady_clock::now());
  }
  void step_done() override { marks_.push_back(std::chrono::steady_clock::now()); }
  std::vector<double> read() override {
    std::vector<double> seconds;
    for (size_t i = 1; i < marks_.size(); ++i)
      seconds.push_back(std::chrono::duration<double>(marks_[i] - marks_[i - 1]).count());
    return seconds;
  }

 private:
  std::vector<std::chrono::steady_clock::time_point> marks_;
};

// Device-generic events (CUDA events on a CUDA device), created once with timing enabled.
class DeviceEventStepTimer final : public StepTimer {
 public:
  DeviceEventStepTimer(const torch::Device& device, int64_t max_steps)
      : device_(device), guard_(device.type()) {
    events_.reserve(static_cast<size_t>(max_steps) + 1);
    for (int64_t i = 0; i <= max_steps; ++i)
      events_.emplace_back(device.type(), c10::EventFlag::BACKEND_DEFAULT);
    // A backend creates an event at its first record (CUDA: cudaEventCreate), which would otherwise
    // happen inside the first timed epoch: each is recorded once here, before any timing.
    const auto stream = guard_.getStream(device_);
    for (auto& event : events_) event.record(stream);
    guard_.synchronizeStream(stream);
  }
  void start() override {
    recorded_ = 0;
    record();
  }
  void step_done() override { record(); }
  std::vector<double> read() override {
    std::vector<double> seconds;
    for (size_t i = 1; i < recorded_; ++i) seconds.push_back(events_[i - 1].elapsedTime(events_[i]) / 1000.0);
    return seconds;
  }

 private:
  void record() {
    if (recorded_ == events_.size()) return;  // more marks than announced: the extra steps go untimed
    events_[recorded_++].record(guard_.getStream(device_));
  }

  torch::Device device_;
  c10::impl::VirtualGuardImpl guard_;  // the device type's stream and event backend
  std::vector<c10::Event> events_;
  size_t recorded_ = 0;
};

}  // namespace

std::unique_ptr<StepTimer> make_step_timer(const torch::Device& device, int64_t max_steps) {
  if (device.is_cpu()) return std::make_unique<HostStepTimer>(max_steps);
  return std::make_unique<DeviceEventStepTimer>(device, max_steps);
}

}  // namespace ampbench::measure
