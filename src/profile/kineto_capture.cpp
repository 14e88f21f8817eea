#include "profile/kineto_capture.h"

#include <cstdlib>

#include <torch/csrc/autograd/profiler_kineto.h>

#include "profile/event_sorting.h"

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

RecordedEvent recorded(const kineto::KinetoEvent& e) {
  return {e.activityType(), op_event(e), e.linkedCorrelationId()};
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
  std::vector<RecordedEvent> events;
  for (const auto& e : result->events()) events.push_back(recorded(e));
  return sort_events(events);
}

bool profiler_active() { return torch::profiler::impl::profilerEnabled(); }

}  // namespace ampbench::profile
