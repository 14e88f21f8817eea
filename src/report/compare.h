#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "measure/statistics.h"
#include "util/input_error.h"

namespace ampbench::report {

// The default regression limits of `compare`: 7 % fewer samples/s, as TorchBench's regression detector
// uses, and the same for peak memory; the val-loss limit defaults to BASE's precision.fidelity_tolerance.
inline constexpr double kDefaultMaxSlowdown = 0.07;
inline constexpr double kDefaultMaxMemoryIncrease = 0.07;

// Regression limits for `ampbench compare`, as fractions (0.05 = 5 %), except the val-loss increase,
// which is absolute. Unset: the defaults above.
struct CompareLimits {
  std::optional<double> max_slowdown;           // 1 - new samples/s / base samples/s
  std::optional<double> max_memory_increase;    // new peak / base peak - 1
  std::optional<double> max_val_loss_increase;  // new val loss - base val loss
};

// How one figure of a mode changed, judged against its limit and the spread the reports measured:
//   ok:           the change is within the limit;
//   regression:   past the limit, and beyond the noise (the change's 95 % interval excludes no change);
//   within_noise: past the limit, but the interval includes no change: the trials cannot tell it from noise;
//   unjudged:     past the limit, with one sample on a side: no spread to tell noise from change.
// Peak memory is deterministic on a fixed device: it is compared exactly (past the limit: a regression).
enum class ChangeVerdict { ok, regression, within_noise, unjudged };
std::string_view to_string(ChangeVerdict verdict);

struct Change {
  double base = 0, next = 0;  // the figures compared: median samples/s, peak bytes, val loss
  double change = 0;  // worse when positive: slowdown fraction, memory increase fraction, loss increase
  std::optional<measure::Interval> interval;  // 95 % of the change (two or more samples on both sides)
  int64_t base_samples = 0, new_samples = 0;  // trials (speed) or seeds (val loss) it was judged over
  double limit = 0;
  bool default_limit = false;  // the limit was not given
  ChangeVerdict verdict = ChangeVerdict::ok;
};

struct ModeComparison {
  std::string mode;
  // Set when NEW has no figures for this mode (it ran out of memory, diverged, was skipped, interrupted
  // or not run): why. Then the changes are not set, and the mode counts as a regression.
  std::optional<std::string> unfinished_in_new;
  Change speed, memory, val_loss;
  std::vector<std::string> regressions;  // one line per limit exceeded beyond noise, unfinished mode or trial
  std::vector<std::string> undecided;    // one line per change past its limit that the data cannot decide
};

struct Comparison {
  std::vector<ModeComparison> modes;  // every mode with figures in BASE, in its order
  // Set when NEW is a partial report (its run was stopped by a signal): a regression, since it cannot
  // stand for the experiment.
  std::optional<std::string> new_incomplete;
  bool regressed() const;
  // No regression, but a change past its limit that one sample cannot tell from noise.
  bool unjudged() const;
};

// Reads two report.json documents and compares every mode BASE has figures for; throws util::InputError
// (naming the file and JSON path) when one is not a report, or when they come from different experiments
// (config hashes differ) unless `force`.
Comparison compare_reports(const nlohmann::json& base, const nlohmann::json& next,
                           const CompareLimits& limits, bool force, const std::string& base_name = "BASE",
                           const std::string& new_name = "NEW");

std::string comparison_to_console(const Comparison& comparison);
std::string comparison_to_markdown(const Comparison& comparison);

}  // namespace ampbench::report
