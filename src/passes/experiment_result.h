#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "amp/mode_support.h"
#include "amp/precision_mode.h"
#include "passes/pass_records.h"
#include "profile/profile_record.h"
#include "train/trial_record.h"

namespace ampbench::train {

// Everything an experiment measured, before any analysis: the trials and what was found about the modes
// before they ran (static facts about the work are in report::RunContext).
struct ExperimentResult {
  std::vector<TrialRecord> trials;  // in the order they ran (modes interleaved); skipped modes once
  // precision.fidelity_seeds > 1: each runnable mode trained from the run's seed + 1, + 2, ... (for the
  // fidelity verdict; the run's own seed is the timed trials'), by seed, then mode.
  std::vector<TrialRecord> fidelity_trials;
  std::vector<UpdateAudit> update_audits;  // the pure bf16 modes' lost-update audits, in order
  std::vector<NumericsRecord> numerics;    // with "numerics": the 16-bit modes' numerics passes, in order
  std::vector<profile::ProfileRecord> profiles;  // the profiled pass, per runnable mode in order
  std::map<amp::PrecisionMode, amp::ModeCaveat> mode_caveats;  // runs, but the reader should know (per mode)
  std::map<amp::PrecisionMode, double> grad_cosine_vs_fp32;    // modes whose first gradient was finite
  int64_t model_parameters = 0;  // elements of the trainable parameters: weights, gradients, optimizer state
  int64_t model_frozen_parameters = 0;  // elements of the parameters that are not trained
  int64_t model_buffers = 0;            // elements of the buffers (batch norm's statistics, rotary tables)
  int64_t model_constants = 0;          // elements of an exported model's lifted tensor constants
  bool data_on_device = true;           // false: too large for the device, batches copied from host memory
  bool complete = false;                // false while trials are still running, or when the run stopped early
  std::optional<std::string> stopped_by;  // "SIGINT", "SIGTERM", "SIGHUP" or "SIGQUIT": the run stopped early
  // The error that ended the run before its first trial (the model or its initial state could not be
  // made, e.g. out of memory): nothing was trained.
  std::optional<std::string> setup_failure;
};

}  // namespace ampbench::train
