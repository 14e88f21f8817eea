#include "train/divergence.h"

#include <algorithm>

#include "train/trial_record.h"

namespace ampbench::train {
namespace {

// The first step of the longest run of skipped optimizer steps, and its length. Steps are consecutive
// optimizer steps when at most `accumulation` steps apart.
std::pair<int64_t, int64_t> longest_skip_run(const std::vector<int64_t>& skipped, int64_t accumulation) {
  std::pair<int64_t, int64_t> longest{0, 0};
  for (size_t i = 0; i < skipped.size();) {
    size_t j = i + 1;
    while (j < skipped.size() && skipped[j] - skipped[j - 1] <= accumulation) ++j;
    if (int64_t(j - i) > longest.second) longest = {skipped[i], int64_t(j - i)};
    i = j;
  }
  return longest;
}

}  // namespace

std::optional<DivergenceTarget> divergence_target(const TrialRecord& record, int64_t steps_per_epoch,
                                                  int64_t accumulation) {
  DivergenceTarget target;
  if (record.status == TrialStatus::diverged && record.stopped_at_step) {
    if (record.diverged_in_validation) {
      target.validation_epoch = *record.stopped_at_step / steps_per_epoch;
      target.trigger =
          "the validation loss after epoch " + std::to_string(*target.validation_epoch) + " was not finite";
    } else {
      target.loss_step = record.stopped_at_step;
      target.trigger = "the training loss was not finite at step " + std::to_string(*target.loss_step);
    }
  }
  if (record.loss_scale_trace) {
    const auto& skipped = record.loss_scale_trace->skipped_steps;
    const auto [run_start, run_length] = longest_skip_run(skipped, accumulation);
    if (run_length > kFewSkippedSteps) {
      target.skipped_steps = {skipped.front()};
      if (run_start != skipped.front()) target.skipped_steps.push_back(run_start);
      const auto run = std::to_string(run_length) + " optimizer steps skipped in a row from step " +
                       std::to_string(run_start);
      target.trigger = target.trigger.empty() ? run : target.trigger + "; " + run;
    }
  }
  if (target.trigger.empty()) return std::nullopt;
  return target;
}

}  // namespace ampbench::train
