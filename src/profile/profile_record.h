#pragma once

#include <optional>
#include <string>

#include "amp/precision_mode.h"
#include "profile/mode_profile.h"

namespace ampbench::profile {

// One mode's profiled pass (config "profile"): its figures, or why it has none or fewer.
struct ProfileRecord {
  amp::PrecisionMode mode = amp::PrecisionMode::fp32;
  std::optional<ModeProfile> profile;
  std::optional<std::string> failure;  // the error that ended the pass: no figures
  double wall_seconds = 0;  // the whole pass, warm-up and trace included: what --profile cost the run
  // Where a stop request ended the pass short of its steps ("stopped by SIGTERM after 3 of 20 profiled
  // steps"): the figures are the mean of the steps it profiled, none when it profiled none.
  std::optional<std::string> stopped;
};

}  // namespace ampbench::profile
