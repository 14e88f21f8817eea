#pragma once

#include <atomic>
#include <cstdint>
#include <string>

namespace ampbench::train {

// Where a run stands, published by the trainer with relaxed atomic stores (no lock, no sync: safe
// inside a timed region) and read by a progress display on another thread.
struct Progress {
  std::atomic<int> mode{0};                  // an amp::PrecisionMode, as int
  std::atomic<int64_t> trial{0}, trials{0};  // a fidelity trial: its seed's index, of fidelity_seeds
  std::atomic<bool> fidelity{false};         // the trial trains a fidelity seed
  std::atomic<int64_t> epoch{0}, epochs{0};
  std::atomic<int64_t> step{0}, steps{0};     // steps done in this epoch, and per epoch
  std::atomic<double> last_train_loss{-1.0};  // the last finished epoch's, read after its timed region
  // The run's plan: trials and profiled passes begun so far, of all it holds (skipped modes not counted).
  std::atomic<int64_t> planned_done{0}, planned_total{0};
};

}  // namespace ampbench::train
