#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "amp/precision_mode.h"

namespace ampbench::train {

// What one entry of a run's plan does.
//   skipped:  the mode cannot run on this device: one record says why (in its first round's place);
//   timed:    a timed trial from the run's seed (number = its round);
//   fidelity: a trial from a further seed, for the fidelity verdict only (number = the seed's index,
//             2 to fidelity_seeds; seed = the run's seed + number - 1);
//   audited:  a pure bf16 mode's lost-update audit, an untimed replay of its first timed trial;
//   numerics: a 16-bit mode's numerics pass, an untimed replay of its first timed trial (numerics_pass.h);
//   profiled: the mode's profiled pass, after all training.
enum class PlannedKind { skipped, timed, fidelity, audited, numerics, profiled };
std::string_view to_string(PlannedKind kind);

struct PlannedTrial {
  PlannedKind kind = PlannedKind::timed;
  amp::PrecisionMode mode = amp::PrecisionMode::fp32;
  int64_t number = 1;
  uint64_t seed = 0;
  bool operator==(const PlannedTrial&) const = default;
};

// What a plan is made from: the config's modes in order, those that cannot run here (with why), and how
// much of each kind to run.
struct PlanInputs {
  std::vector<amp::PrecisionMode> modes;
  std::map<amp::PrecisionMode, std::string> skipped;
  int64_t repeats = 1;
  int64_t fidelity_seeds = 1;
  uint64_t seed = 0;
  bool numerics = false;
  bool profile = false;
};

// Every trial of a run, in the order it runs: the timed rounds with the modes interleaved (fp32, tf32,
// fp16, bf16, fp32, ...) so that machine drift spreads over all of them, then the fidelity seeds (by
// seed, then mode), then the pure bf16 modes' audits, then the 16-bit modes' numerics passes, then the
// profiled passes; a mode that cannot run appears once, as skipped, where its first timed trial would be.
std::vector<PlannedTrial> plan_run(const PlanInputs& inputs);

// The entries that train or profile (all but the skipped ones): the progress line's total.
int64_t planned_work(const std::vector<PlannedTrial>& plan);

}  // namespace ampbench::train
