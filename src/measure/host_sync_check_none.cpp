#include "measure/host_sync_check.h"

namespace ampbench::measure {

// Without CUDA there is no GPU to sync with.
HostSyncCheck::HostSyncCheck(const c10::Device&, bool) {}

HostSyncCheck::~HostSyncCheck() = default;

}  // namespace ampbench::measure
