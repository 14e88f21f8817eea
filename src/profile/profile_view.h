#pragma once

#include <optional>

#include <vector>

#include "profile/mode_profile.h"
#include "profile/profile_record.h"

namespace ampbench::profile {

// The comparisons every renderer of the profiled pass shows: a mode's times beside fp32's.

// fp32's profile, when it ran and finished.
const ModeProfile* fp32_profile(const std::vector<ProfileRecord>& profiles);
// A class's time over all phases.
double class_seconds(const ModeProfile& p, OpClass op_class);
// A (phase, class) time, or a class over all phases when `phase` is empty, against fp32's.
std::optional<double> class_ratio(const ModeProfile& p, const ModeProfile* fp32, const ClassTime& time);
std::optional<double> class_ratio(const ModeProfile& p, const ModeProfile* fp32, OpClass op_class);
// fp32's time in the same op (the same name, phase and input shapes; dtypes differ by design); empty for
// fp32's own ops and without fp32.
std::optional<double> fp32_op_seconds(const OpTime& op, const ModeProfile* fp32);
// An op's time against that.
std::optional<double> op_ratio(const OpTime& op, const ModeProfile* fp32);
// time / the profiled step's time.
std::optional<double> step_share(const ModeProfile& p, double seconds);

}  // namespace ampbench::profile
