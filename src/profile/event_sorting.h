#pragma once

#include <cstdint>
#include <vector>

#include "profile/captured_events.h"

namespace ampbench::profile {

// What one profiler event is to the attribution, by the kind of activity Kineto recorded it as.
enum class EventRole {
  host_op,      // an operator or a user scope on the host (the markers among them)
  device_work,  // a kernel, copy or memset on the device, linked to the operator that launched it
  ignored,      // runtime and driver calls, CUPTI's overhead, the device spans of user scopes, ...
};

// A profiler event reduced to what sorting it needs.
struct RecordedEvent {
  uint8_t activity_type = 0;           // libkineto::ActivityType
  OpEvent op;                          // its name, thread, span, inputs, FLOPs and own correlation id
  uint64_t linked_correlation_id = 0;  // on the device: the launching operator's id; 0 for none
};

// A CUDA runtime call's correlation id is CUPTI's own counter, which overlaps the operators' ids; were it
// kept as an op, an operator's kernels could be credited to a launch call. So only host operators and
// device work are kept, and device work with no launching operator (linked id 0) is left out.
EventRole role_of(uint8_t activity_type, uint64_t linked_correlation_id);

// Splits what a profiled pass recorded into host ops, device work, and the step and phase markers.
CapturedEvents sort_events(const std::vector<RecordedEvent>& events);

}  // namespace ampbench::profile
