#pragma once

#include <cstdint>

namespace ampbench::amp {

// Defaults are torch.amp.GradScaler's.
struct GradScalerOptions {
  double init_scale = 65536.0;
  double growth_factor = 2.0;
  double backoff_factor = 0.5;
  int64_t growth_interval = 2000;
};

}  // namespace ampbench::amp
