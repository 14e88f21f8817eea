#pragma once

#include <optional>
#include <string>

#include "amp/precision_mode.h"
#include "profile/mode_profile.h"

namespace ampbench::profile {

// One mode's profiled pass (config "profile"): its figures, or why it has none.
struct ProfileRecord {
  amp::PrecisionMode mode = amp::PrecisionMode::fp32;
  std::optional<ModeProfile> profile;
  std::optional<std::string> failure;  // the error that ended the pass
  double wall_seconds = 0;  // the whole pass, warm-up and trace included: what --profile cost the run
};

}  // namespace ampbench::profile
