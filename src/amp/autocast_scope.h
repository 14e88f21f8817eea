#pragma once

#include <optional>

#include <c10/core/DeviceType.h>
#include <c10/core/ScalarType.h>

namespace ampbench::amp {

// RAII autocast region, the C++ counterpart of Python's `with torch.autocast(device, dtype)`:
// on entry it saves the device's autocast state, enables it with `dtype` (or disables it when dtype is
// nullopt) and bumps the nesting level; on exit it clears the cast cache when the outermost region
// closes and restores the saved state. Wrap forward + loss only; backward and the optimizer step run
// outside it.
class AutocastScope {
 public:
  AutocastScope(c10::DeviceType device, std::optional<c10::ScalarType> dtype, bool cache_enabled = true);
  ~AutocastScope();

  AutocastScope(const AutocastScope&) = delete;
  AutocastScope& operator=(const AutocastScope&) = delete;

 private:
  c10::DeviceType device_;
  bool previous_enabled_;
  c10::ScalarType previous_dtype_;
  bool previous_cache_enabled_;
};

}  // namespace ampbench::amp
