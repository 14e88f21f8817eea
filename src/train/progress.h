#pragma once

#include <atomic>
#include <cstdint>
#include <string>

namespace ampbench::train {

// What the run is doing: a trial (timed or a fidelity seed) or one of the untimed passes around them.
enum class PassKind : int { trial, first_gradient, divergence_replay, update_audit, numerics, profile };

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
  // An untimed pass under way (PassKind, as int; trial: none), its mode in `mode`, and its steps done of all
  // (pass_steps 0: a pass that counts no steps, shown with its time so far).
  std::atomic<int> pass{0};
  std::atomic<int64_t> pass_step{0}, pass_steps{0};
};

// Shows an untimed pass in `progress` (which may be null) for its lifetime, so that nothing sits silent
// while it runs; each store is a relaxed atomic, outside any timed region.
class UntimedPassProgress {
 public:
  UntimedPassProgress(Progress* progress, int mode, PassKind kind, int64_t steps) : progress_(progress) {
    if (!progress_) return;
    progress_->mode.store(mode, std::memory_order_relaxed);
    progress_->pass_step.store(0, std::memory_order_relaxed);
    progress_->pass_steps.store(steps, std::memory_order_relaxed);
    progress_->pass.store(static_cast<int>(kind), std::memory_order_relaxed);
  }
  ~UntimedPassProgress() {
    if (progress_) progress_->pass.store(static_cast<int>(PassKind::trial), std::memory_order_relaxed);
  }
  UntimedPassProgress(const UntimedPassProgress&) = delete;
  UntimedPassProgress& operator=(const UntimedPassProgress&) = delete;

  void steps_done(int64_t done) {
    if (progress_) progress_->pass_step.store(done, std::memory_order_relaxed);
  }

 private:
  Progress* progress_;
};

}  // namespace ampbench::train
