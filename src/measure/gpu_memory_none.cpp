#include "measure/memory_budget.h"

namespace ampbench::measure {

// Without CUDA no GPU can be selected, so these are never reached.
void limit_gpu_memory(c10::DeviceIndex, std::optional<int64_t>) {}

int64_t gpu_free_bytes(c10::DeviceIndex) { return 0; }

}  // namespace ampbench::measure
