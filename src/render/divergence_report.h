#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "train/divergence.h"
#include "train/trial_record.h"

namespace ampbench::report {

// A trial's divergence diagnosis as report.json's trials[].divergence (null when it has none).
nlohmann::json divergence_json(const std::optional<train::DivergenceDiagnosis>& diagnosis);

// One line per diagnosed trial (timed and fidelity, in the order they ran), for the console and report.md:
// what the trial saw, the first op that made inf or NaN at each observed step, where and from what, and
// whether the replay reproduced the trial.
std::vector<std::string> divergence_lines(const std::vector<train::TrialRecord>& trials,
                                          const std::vector<train::TrialRecord>& fidelity_trials);

}  // namespace ampbench::report
