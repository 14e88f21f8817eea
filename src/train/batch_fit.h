#pragma once

#include <cstdint>
#include <string>

namespace ampbench::train {

// Whether one mode's training fits in memory at one batch size, and what it held at its peak: the steps
// Trainer::train_first_steps trains, in a trial's own state.
struct BatchFit {
  int64_t batch = 0;
  bool fits = false;
  // Every byte held on the device at the peak (the data and the initial state too, as a memory budget
  // counts them), up to where memory ran out when it did not fit.
  int64_t peak_bytes = 0;
  std::string detail;  // the out-of-memory error's first line when it did not fit
};

}  // namespace ampbench::train
