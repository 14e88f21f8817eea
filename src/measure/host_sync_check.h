#pragma once

#include <cstdlib>
#include <string_view>

#include <c10/core/Device.h>

namespace ampbench::measure {

// The environment variable that asks for the check below (set to 1): a check of ampbench itself, which
// scripts/gpu-check runs on a GPU.
inline constexpr const char* kForbidHostSyncVariable = "AMPBENCH_FORBID_HOST_SYNC";

// While it lives, when requested (AMPBENCH_FORBID_HOST_SYNC=1) and `device` is a GPU, a host sync (an
// .item(), a blocking copy, a synchronize) raises an error instead of waiting: CUDA's sync-debug mode, as
// torch.cuda.set_sync_debug_mode("error"). The timed loop runs under it, so a hidden sync there fails the
// trial. Implemented in host_sync_check_cuda.cpp for CUDA builds of LibTorch and in
// host_sync_check_none.cpp otherwise, where it does nothing.
class HostSyncCheck {
 public:
  // `requested`: host_sync_check_requested(), read once before the timed region rather than in it.
  HostSyncCheck(const c10::Device& device, bool requested);
  ~HostSyncCheck();
  HostSyncCheck(const HostSyncCheck&) = delete;
  HostSyncCheck& operator=(const HostSyncCheck&) = delete;

  bool active() const { return active_; }

 private:
  bool active_ = false;
  int previous_mode_ = 0;
};

// Whether AMPBENCH_FORBID_HOST_SYNC asks for the check.
inline bool host_sync_check_requested() {
  const char* value = std::getenv(kForbidHostSyncVariable);
  return value != nullptr && std::string_view(value) == "1";
}

}  // namespace ampbench::measure
