#include "passes/run_plan.h"

#include <algorithm>

#include "util/enum_names.h"

namespace ampbench::train {
namespace {

constexpr util::EnumNames<PlannedKind, 6> kKindNames{{{PlannedKind::skipped, "skipped"},
                                                      {PlannedKind::timed, "timed"},
                                                      {PlannedKind::fidelity, "fidelity"},
                                                      {PlannedKind::audited, "audited"},
                                                      {PlannedKind::numerics, "numerics"},
                                                      {PlannedKind::profiled, "profiled"}}};

}  // namespace

std::string_view to_string(PlannedKind kind) { return util::name_of(kKindNames, kind); }

std::vector<PlannedTrial> plan_run(const PlanInputs& in) {
  std::vector<PlannedTrial> plan;
  std::vector<amp::PrecisionMode> runnable;
  for (auto mode : in.modes) {
    if (!in.skipped.contains(mode)) runnable.push_back(mode);
  }
  for (int64_t round = 1; round <= in.repeats; ++round) {
    for (auto mode : in.modes) {
      const bool skipped = in.skipped.contains(mode);
      if (skipped && round > 1) continue;
      plan.push_back({skipped ? PlannedKind::skipped : PlannedKind::timed, mode, round, in.seed});
    }
  }
  for (int64_t index = 2; index <= in.fidelity_seeds; ++index) {
    for (auto mode : runnable)
      plan.push_back({PlannedKind::fidelity, mode, index, in.seed + uint64_t(index - 1)});
  }
  for (auto mode : runnable) {
    if (amp::recipe_of(mode).audited) plan.push_back({PlannedKind::audited, mode, 1, in.seed});
  }
  if (in.numerics) {
    for (auto mode : runnable) {
      if (amp::recipe_of(mode).observed_format) plan.push_back({PlannedKind::numerics, mode, 1, in.seed});
    }
  }
  if (in.profile) {
    for (auto mode : runnable) plan.push_back({PlannedKind::profiled, mode, 1, in.seed});
  }
  return plan;
}

int64_t planned_work(const std::vector<PlannedTrial>& plan) {
  return std::count_if(plan.begin(), plan.end(),
                       [](const PlannedTrial& p) { return p.kind != PlannedKind::skipped; });
}

}  // namespace ampbench::train
