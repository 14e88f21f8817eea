#pragma once

#include <filesystem>

#include "profile/captured_events.h"

namespace ampbench::profile {

// The names the profiled pass marks its steps and their phases with (user scopes in the trace).
inline constexpr const char* kStepMarker = "ampbench::step";
inline constexpr const char* kForwardMarker = "ampbench::forward";
inline constexpr const char* kBackwardMarker = "ampbench::backward";
inline constexpr const char* kOptimizerMarker = "ampbench::optimizer";

// Records every operator run between start() and stop() with LibTorch's Kineto profiler
// (torch/csrc/autograd/profiler_kineto.h): host operators with their input dtypes, shapes and FLOPs, and
// with `cuda` also the device's kernels, copies and memsets.
class KinetoCapture {
 public:
  explicit KinetoCapture(bool cuda) : cuda_(cuda) {}
  KinetoCapture(const KinetoCapture&) = delete;
  KinetoCapture& operator=(const KinetoCapture&) = delete;
  ~KinetoCapture();  // stops a capture that is still on (an error in a profiled step)

  void start();
  // Stops and returns what was recorded; writes the Chrome trace to `trace_path` first (whole or not at
  // all; false in `trace_written` when it could not).
  CapturedEvents stop(const std::filesystem::path& trace_path, bool& trace_written);

 private:
  bool cuda_;
  bool running_ = false;
};

// Whether a profiler is recording on this thread: the trainer checks that none is around a timed region.
bool profiler_active();

}  // namespace ampbench::profile
