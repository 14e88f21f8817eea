#include "amp/autocast_scope.h"

#include <ATen/autocast_mode.h>

namespace ampbench::amp {

AutocastScope::AutocastScope(c10::DeviceType device, std::optional<c10::ScalarType> dtype, bool cache_enabled)
    : device_(device),
      previous_enabled_(at::autocast::is_autocast_enabled(device)),
      previous_dtype_(at::autocast::get_autocast_dtype(device)),
      previous_cache_enabled_(at::autocast::is_autocast_cache_enabled()) {
  at::autocast::set_autocast_enabled(device_, dtype.has_value());
  if (dtype) at::autocast::set_autocast_dtype(device_, *dtype);
  at::autocast::increment_nesting();
  at::autocast::set_autocast_cache_enabled(cache_enabled);
}

AutocastScope::~AutocastScope() {
  // Casts of weights are cached for the outermost region only; dropping them here frees their memory.
  if (at::autocast::decrement_nesting() == 0) at::autocast::clear_cache();
  at::autocast::set_autocast_enabled(device_, previous_enabled_);
  at::autocast::set_autocast_dtype(device_, previous_dtype_);
  at::autocast::set_autocast_cache_enabled(previous_cache_enabled_);
}

}  // namespace ampbench::amp
