#pragma once

#include <atomic>
#include <string>
#include <thread>

#include "train/progress.h"

namespace ampbench::app {

// What the line shows for `progress`, `elapsed` seconds into its trial or pass: "[5/12] fp16 trial 1/3 epoch
// 2/3 step 45/96 ETA 0:12 loss 1.234", "bf16 numerics pass step 3/10 ETA 0:14", "fp16 first-batch gradient
// 0:42"; empty before a trial's first epoch.
std::string progress_text(const train::Progress& progress, double elapsed);

// A live progress line on stderr ("[5/12] fp16 trial 1/3 epoch 2/3 step 45/96 ETA 0:12 loss 1.234": the
// trial's place in the run's plan first), redrawn
// a few times a second by its own thread from train::Progress. Start it only for a person at a
// terminal: it writes nothing into logs or pipes. Its thread reads atomics and never touches the
// device, so it does not disturb the timed work beyond a wake-up every 250 ms.
class ProgressLine {
 public:
  explicit ProgressLine(const train::Progress& progress);
  ~ProgressLine();  // stops the thread and clears the line

  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

 private:
  void loop();

  const train::Progress& progress_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace ampbench::app
