#include "profile/kineto_capture.h"

#include <cstdlib>
#include <string_view>

#include <torch/csrc/autograd/profiler_kineto.h>

namespace ampbench::profile {
namespace {

namespace kineto = torch::autograd::profiler;
using torch::profiler::impl::ActivityType;
using torch::profiler::impl::ProfilerConfig;
using torch::profiler::impl::ProfilerState;

ProfilerConfig config() {
  return ProfilerConfig(ProfilerState::KINETO, /*report_input_shapes=*/true, /*profile_memory=*/false,
                        /*with_stack=*/false, /*with_flops=*/true);
}

std::set<ActivityType> activities(bool cuda) {
  if (cuda) return {ActivityType::CPU, ActivityType::CUDA};
  return {ActivityType::CPU};
}

// A marker's event becomes a step or a phase span; false when it is no marker.
bool take_marker(std::string_view name, const Span& span, CapturedEvents& out) {
  if (name == kStepMarker) {
    out.steps.push_back(span);
  } else if (name == kForwardMarker) {
    out.phases.emplace_back(Phase::forward, span);
  } else if (name == kBackwardMarker) {
    out.phases.emplace_back(Phase::backward, span);
  } else if (name == kOptimizerMarker) {
    out.phases.emplace_back(Phase::optimizer, span);
  } else {
    return false;
  }
  return true;
}

OpEvent op_event(const kineto::KinetoEvent& e) {
  OpEvent op;
  op.name = e.name();
  op.thread = e.startThreadId();
  op.start_ns = int64_t(e.startNs());
  op.end_ns = int64_t(e.endNs());
  if (e.hasTypes()) op.dtypes.assign(e.dtypes().begin(), e.dtypes().end());
  if (e.hasShapes()) op.shapes.assign(e.shapes().begin(), e.shapes().end());
  op.flops = double(e.flops());
  op.correlation_id = e.correlationId();
  return op;
}

CapturedEvents convert(const std::vector<kineto::KinetoEvent>& events) {
  CapturedEvents out;
  for (const auto& e : events) {
    if (e.deviceType() == c10::DeviceType::CUDA) {
      out.device.push_back({int64_t(e.durationNs()), e.linkedCorrelationId()});
      continue;
    }
    const auto name = e.name();
    if (!take_marker(name, {int64_t(e.startNs()), int64_t(e.endNs())}, out)) out.ops.push_back(op_event(e));
  }
  return out;
}

void save_trace(kineto::ProfilerResult& result, const std::filesystem::path& path, bool& written) {
  written = false;
  if (path.empty()) return;
  auto partial = path;
  partial += ".partial";
  std::error_code error;
  try {
    result.save(partial.string());
    std::filesystem::rename(partial, path, error);
    written = !error;
  } catch (const std::exception&) {
  }
  if (!written) std::filesystem::remove(partial, error);
}

}  // namespace

KinetoCapture::~KinetoCapture() {
  if (running_) kineto::disableProfiler();
}

void KinetoCapture::start() {
  // Kineto announces every start and stop on stderr at its top level, USDT (5), which would break into
  // the run's own lines. Above it its errors are silent too; a failed device capture still shows, as a
  // profile timed on the host. A level set by the user stands.
  setenv("KINETO_LOG_LEVEL", "6", /*overwrite=*/0);
  kineto::prepareProfiler(config(), activities(cuda_));
  kineto::enableProfiler(config(), activities(cuda_));
  running_ = true;
}

CapturedEvents KinetoCapture::stop(const std::filesystem::path& trace_path, bool& trace_written) {
  running_ = false;
  auto result = kineto::disableProfiler();
  save_trace(*result, trace_path, trace_written);
  return convert(result->events());
}

bool profiler_active() { return torch::profiler::impl::profilerEnabled(); }

}  // namespace ampbench::profile
