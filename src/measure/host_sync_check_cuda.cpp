#include "measure/host_sync_check.h"

#include <c10/cuda/CUDAFunctions.h>

namespace ampbench::measure {

HostSyncCheck::HostSyncCheck(const c10::Device& device, bool requested)
    : active_(device.is_cuda() && requested) {
  if (!active_) return;
  auto& state = c10::cuda::warning_state();
  previous_mode_ = static_cast<int>(state.get_sync_debug_mode());
  state.set_sync_debug_mode(c10::cuda::SyncDebugMode::L_ERROR);
}

HostSyncCheck::~HostSyncCheck() {
  if (active_)
    c10::cuda::warning_state().set_sync_debug_mode(static_cast<c10::cuda::SyncDebugMode>(previous_mode_));
}

}  // namespace ampbench::measure
