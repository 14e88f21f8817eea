#include "profile/event_sorting.h"

#include <string_view>

#include <ActivityType.h>

#include "profile/kineto_capture.h"

namespace ampbench::profile {
namespace {

using libkineto::ActivityType;

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

}  // namespace

EventRole role_of(uint8_t activity_type, uint64_t linked_correlation_id) {
  switch (ActivityType(activity_type)) {
    case ActivityType::CPU_OP:
    case ActivityType::USER_ANNOTATION:
      return EventRole::host_op;
    case ActivityType::CONCURRENT_KERNEL:
    case ActivityType::GPU_MEMCPY:
    case ActivityType::GPU_MEMSET:
      return linked_correlation_id == 0 ? EventRole::ignored : EventRole::device_work;
    default:
      return EventRole::ignored;
  }
}

CapturedEvents sort_events(const std::vector<RecordedEvent>& events) {
  CapturedEvents out;
  for (const auto& e : events) {
    switch (role_of(e.activity_type, e.linked_correlation_id)) {
      case EventRole::device_work:
        out.device.push_back({e.op.end_ns - e.op.start_ns, e.linked_correlation_id});
        break;
      case EventRole::host_op:
        if (!take_marker(e.op.name, {e.op.start_ns, e.op.end_ns}, out)) out.ops.push_back(e.op);
        break;
      case EventRole::ignored:
        break;
    }
  }
  return out;
}

}  // namespace ampbench::profile
