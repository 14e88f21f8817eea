#include "train/trial_record.h"

#include "util/enum_names.h"

namespace ampbench::train {
namespace {

constexpr util::EnumNames<TrialStatus, 6> kStatusNames{{
    {TrialStatus::ok, "ok"},
    {TrialStatus::diverged, "diverged"},
    {TrialStatus::oom, "oom"},
    {TrialStatus::failed, "failed"},
    {TrialStatus::interrupted, "interrupted"},
    {TrialStatus::skipped, "skipped"},
}};

}  // namespace

std::string_view to_string(TrialStatus status) { return util::name_of(kStatusNames, status); }

}  // namespace ampbench::train
