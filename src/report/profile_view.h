#pragma once

#include <optional>

#include "profile/mode_profile.h"
#include "train/experiment_result.h"

namespace ampbench::report {

// The comparisons every renderer of the profiled pass shows: a mode's times beside fp32's.

// fp32's profile, when it ran and finished.
const profile::ModeProfile* fp32_profile(const train::ExperimentResult& measured);
// A class's time over all phases.
double class_seconds(const profile::ModeProfile& p, profile::OpClass op_class);
// A (phase, class) time, or a class over all phases when `phase` is empty, against fp32's.
std::optional<double> class_ratio(const profile::ModeProfile& p, const profile::ModeProfile* fp32,
                                  const profile::ClassTime& time);
std::optional<double> class_ratio(const profile::ModeProfile& p, const profile::ModeProfile* fp32,
                                  profile::OpClass op_class);
// fp32's time in the same op (the same name, phase and input shapes; dtypes differ by design); empty for
// fp32's own ops and without fp32.
std::optional<double> fp32_op_seconds(const profile::OpTime& op, const profile::ModeProfile* fp32);
// An op's time against that.
std::optional<double> op_ratio(const profile::OpTime& op, const profile::ModeProfile* fp32);
// time / the profiled step's time.
std::optional<double> step_share(const profile::ModeProfile& p, double seconds);

}  // namespace ampbench::report
