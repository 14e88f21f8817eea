#include "app/progress_line.h"

#include <chrono>
#include <cstdio>

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

void ProgressLine::loop() {
  using clock = std::chrono::steady_clock;
  int64_t trial_key = -1;
  auto trial_start = clock::now();
  while (!stop_) {
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
    auto mode = static_cast<amp::PrecisionMode>(progress_.mode.load(std::memory_order_relaxed));
    int64_t trial = progress_.trial.load(std::memory_order_relaxed);
    int64_t epoch = progress_.epoch.load(std::memory_order_relaxed),
            epochs = progress_.epochs.load(std::memory_order_relaxed);
    int64_t step = progress_.step.load(std::memory_order_relaxed),
            steps = progress_.steps.load(std::memory_order_relaxed);
    if (steps == 0 || epoch == 0) continue;
    // A new trial restarts the ETA's clock.
    const bool fidelity = progress_.fidelity.load(std::memory_order_relaxed);
    int64_t key = (trial * 16 + static_cast<int64_t>(mode)) * 2 + (fidelity ? 1 : 0);
    if (key != trial_key) trial_key = key, trial_start = clock::now();
    int64_t done = (epoch - 1) * steps + step, total = epochs * steps;
    double elapsed = std::chrono::duration<double>(clock::now() - trial_start).count();
    char eta[32] = "?";
    if (done > 0) {
      auto remaining = static_cast<int64_t>(elapsed / double(done) * double(total - done));
      std::snprintf(eta, sizeof eta, "%lld:%02lld", static_cast<long long>(remaining / 60),
                    static_cast<long long>(remaining % 60));
    }
    char loss[32] = "";
    double last = progress_.last_train_loss.load(std::memory_order_relaxed);
    if (last >= 0) std::snprintf(loss, sizeof loss, " loss %.4f", last);
    // Where this trial stands in the run's plan: "[3/12]".
    char planned[48] = "";
    if (const auto total = progress_.planned_total.load(std::memory_order_relaxed); total > 0)
      std::snprintf(planned, sizeof planned, "[%lld/%lld] ",
                    static_cast<long long>(progress_.planned_done.load(std::memory_order_relaxed)),
                    static_cast<long long>(total));
    std::fprintf(stderr, "\r\033[K%s%s %s %lld/%lld epoch %lld/%lld step %lld/%lld ETA %s%s", planned,
                 std::string(amp::to_string(mode)).c_str(), fidelity ? "fidelity seed" : "trial",
                 static_cast<long long>(trial), static_cast<long long>(progress_.trials.load()),
                 static_cast<long long>(epoch), static_cast<long long>(epochs), static_cast<long long>(step),
                 static_cast<long long>(steps), eta, loss);
    std::fflush(stderr);
  }
}

}  // namespace ampbench::app
