#include "app/progress_line.h"

#include <chrono>
#include <cstdio>
#include <string>
#include <string_view>

#include "amp/precision_mode.h"

namespace ampbench::app {

ProgressLine::ProgressLine(const train::Progress& progress)
    : progress_(progress), thread_([this] { loop(); }) {}

ProgressLine::~ProgressLine() {
  stop_ = true;
  thread_.join();
  std::fputs("\r\033[K", stderr);
  std::fflush(stderr);
}

namespace {

using clock = std::chrono::steady_clock;

std::string minutes_seconds(double seconds) {
  const auto whole = static_cast<long long>(seconds);
  char text[32];
  std::snprintf(text, sizeof text, "%lld:%02lld", whole / 60, whole % 60);
  return text;
}

// Where the item stands in the run's plan: "[3/12] ", or nothing before the plan is made.
std::string planned_prefix(const train::Progress& progress) {
  const auto total = progress.planned_total.load(std::memory_order_relaxed);
  if (total <= 0) return "";
  return "[" + std::to_string(progress.planned_done.load(std::memory_order_relaxed)) + "/" +
         std::to_string(total) + "] ";
}

std::string_view pass_name(train::PassKind kind) {
  switch (kind) {
    case train::PassKind::first_gradient:
      return "first-batch gradient";
    case train::PassKind::divergence_replay:
      return "divergence replay";
    case train::PassKind::update_audit:
      return "lost-update audit";
    case train::PassKind::numerics:
      return "numerics pass";
    case train::PassKind::profile:
      return "profiled pass";
    case train::PassKind::trial:
      break;
  }
  return "trial";
}

// "fp16 numerics pass step 3/10 ETA 0:12", or with no steps counted "fp16 first-batch gradient 0:42".
std::string pass_line(const train::Progress& progress, train::PassKind kind, double elapsed) {
  const auto mode = static_cast<amp::PrecisionMode>(progress.mode.load(std::memory_order_relaxed));
  const auto done = progress.pass_step.load(std::memory_order_relaxed);
  const auto total = progress.pass_steps.load(std::memory_order_relaxed);
  std::string line =
      planned_prefix(progress) + std::string(amp::to_string(mode)) + " " + std::string(pass_name(kind));
  if (total <= 0) return line + " " + minutes_seconds(elapsed);
  line += " step " + std::to_string(done) + "/" + std::to_string(total) + " ETA ";
  return line + (done > 0 ? minutes_seconds(elapsed / double(done) * double(total - done)) : "?");
}

// "fp16 trial 1/3 epoch 2/3 step 45/96 ETA 0:12 loss 1.234"; empty before the trial's first epoch.
std::string trial_line(const train::Progress& progress, double elapsed) {
  const auto mode = static_cast<amp::PrecisionMode>(progress.mode.load(std::memory_order_relaxed));
  const int64_t epoch = progress.epoch.load(std::memory_order_relaxed),
                epochs = progress.epochs.load(std::memory_order_relaxed);
  const int64_t step = progress.step.load(std::memory_order_relaxed),
                steps = progress.steps.load(std::memory_order_relaxed);
  if (steps == 0 || epoch == 0) return "";
  const int64_t done = (epoch - 1) * steps + step, total = epochs * steps;
  const std::string eta = done > 0 ? minutes_seconds(elapsed / double(done) * double(total - done)) : "?";
  char loss[32] = "";
  const double last = progress.last_train_loss.load(std::memory_order_relaxed);
  if (last >= 0) std::snprintf(loss, sizeof loss, " loss %.4f", last);
  const bool fidelity = progress.fidelity.load(std::memory_order_relaxed);
  return planned_prefix(progress) + std::string(amp::to_string(mode)) +
         (fidelity ? " fidelity seed " : " trial ") +
         std::to_string(progress.trial.load(std::memory_order_relaxed)) + "/" +
         std::to_string(progress.trials.load(std::memory_order_relaxed)) + " epoch " + std::to_string(epoch) +
         "/" + std::to_string(epochs) + " step " + std::to_string(step) + "/" + std::to_string(steps) +
         " ETA " + eta + loss;
}

// Changes when a new trial or pass begins, which restarts the ETA's clock.
int64_t item_key(const train::Progress& p) {
  const int64_t trial = p.trial.load(std::memory_order_relaxed),
                mode = p.mode.load(std::memory_order_relaxed);
  const int64_t fidelity = p.fidelity.load(std::memory_order_relaxed) ? 1 : 0;
  return ((trial * 64 + mode) * 2 + fidelity) * 8 + p.pass.load(std::memory_order_relaxed);
}

}  // namespace

std::string progress_text(const train::Progress& progress, double elapsed) {
  const auto kind = static_cast<train::PassKind>(progress.pass.load(std::memory_order_relaxed));
  return kind == train::PassKind::trial ? trial_line(progress, elapsed) : pass_line(progress, kind, elapsed);
}

void ProgressLine::loop() {
  int64_t key_shown = -1;
  auto started = clock::now();
  while (!stop_) {
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
    const int64_t key = item_key(progress_);
    if (key != key_shown) key_shown = key, started = clock::now();
    const double elapsed = std::chrono::duration<double>(clock::now() - started).count();
    const auto line = progress_text(progress_, elapsed);
    if (line.empty()) continue;
    std::fprintf(stderr, "\r\033[K%s", line.c_str());
    std::fflush(stderr);
  }
}

}  // namespace ampbench::app
