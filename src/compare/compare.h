#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "measure/statistics.h"
#include "util/input_error.h"

namespace ampbench::compare {

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
//   unjudged:     past the limit, with one sample on a side: no spread to tell noise from change;
//   emulated:     the speed of a mode whose products either side emulated (its summary's `emulated`): its
//                 time is the emulation's cost, not the format's, so it is shown and never judged.
// Peak memory is deterministic on a fixed device: it is compared exactly (past the limit: a regression).
// These names are the verdicts of every format compare writes (console, Markdown, JSON).
enum class ChangeVerdict { ok, regression, within_noise, unjudged, emulated };
std::string_view to_string(ChangeVerdict verdict);

// A limit in force, and whether it was the default.
struct Limit {
  double value = 0;
  bool is_default = true;
};

struct Change {
  double base = 0, next = 0;  // the figures compared: median samples/s, peak bytes, val loss
  double change = 0;  // worse when positive: slowdown fraction, memory increase fraction, loss increase
  std::optional<measure::Interval> interval;  // 95 % of the change (two or more samples on both sides)
  int64_t base_samples = 0, new_samples = 0;  // trials (speed) or seeds (val loss) it was judged over
  Limit limit;
  ChangeVerdict verdict = ChangeVerdict::ok;
};

// A line that says what was found: a regression, or a change past its limit that the data cannot decide
// (within_noise, unjudged).
struct Finding {
  ChangeVerdict verdict = ChangeVerdict::regression;
  std::string text;  // "MODE: what changed, the limit, the interval and what would decide it"
};

struct ModeComparison {
  std::string mode;
  // Set when NEW has no figures for this mode (it ran out of memory, diverged, was skipped, interrupted
  // or not run): why. Then the changes are not set, and the mode counts as a regression.
  std::optional<std::string> unfinished_in_new;
  Change speed, memory, val_loss;
  // A line per limit exceeded beyond noise, unfinished mode or trial, and per undecided change.
  std::vector<Finding> findings;
};

struct Comparison {
  std::string base_name, new_name;
  Limit max_slowdown, max_memory_increase, max_val_loss_increase;  // in force
  std::vector<ModeComparison> modes;  // every mode with figures in BASE, in its order
  // Set when NEW is a partial report (its run was stopped by a signal): a regression, since it cannot
  // stand for the experiment.
  std::optional<std::string> new_incomplete;
  // The whole comparison's verdict, the gravest found: regression (any, or a partial NEW), else unjudged,
  // else within_noise, else ok.
  ChangeVerdict verdict() const;
};

// How a change or a limit is written: a fraction as a signed percentage ("+7.0%"), a loss change to four
// places ("+0.0123"); a limit is a size, so limit_text drops the sign.
using ChangeShown = std::string (*)(double);
std::string percent_text(double fraction);
std::string loss_text(double value);
std::string limit_text(ChangeShown show, double value);

// Reads two report.json documents and compares every mode BASE has figures for; throws util::InputError
// (naming the file and JSON path) when one is not a report, or when they come from different experiments
// (config hashes differ) unless `force`.
Comparison compare_reports(const nlohmann::json& base, const nlohmann::json& next,
                           const CompareLimits& limits, bool force, const std::string& base_name = "BASE",
                           const std::string& new_name = "NEW");

}  // namespace ampbench::compare
