#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "util/input_error.h"

namespace ampbench::report {

// Regression limits for `ampbench compare`, as fractions (0.05 = 5 %), except the val-loss increase,
// which is absolute. Unset limits are not checked.
struct CompareLimits {
  std::optional<double> max_slowdown;           // 1 - new samples/s / base samples/s
  std::optional<double> max_memory_increase;    // new peak / base peak - 1
  std::optional<double> max_val_loss_increase;  // new val loss - base val loss
};

struct ModeComparison {
  std::string mode;
  double base_samples_per_second = 0, new_samples_per_second = 0;
  double slowdown = 0;  // positive: slower
  int64_t base_peak_bytes = 0, new_peak_bytes = 0;
  std::optional<double> memory_increase;  // empty when the base peak is 0
  double base_val_loss = 0, new_val_loss = 0;
  // Set when NEW has no figures for this mode (it ran out of memory, diverged, was skipped, interrupted
  // or not run): why. Then the new_* figures are not set, and the mode counts as a regression.
  std::optional<std::string> unfinished_in_new;
  std::vector<std::string> regressions;  // one line per limit exceeded, unfinished mode or trial
};

struct Comparison {
  std::vector<ModeComparison> modes;  // every mode with figures in BASE, in its order
  // Set when NEW is a partial report (its run was stopped by a signal): a regression, since it cannot
  // stand for the experiment.
  std::optional<std::string> new_incomplete;
  bool regressed() const;
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
