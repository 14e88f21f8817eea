#include "train/stop_request.h"

#include <atomic>
#include <csignal>

namespace ampbench::train {
namespace {

struct StopSignal {
  int number;
  const char* name;
  const char* lower_case_name;
};
constexpr StopSignal kStopSignals[] = {{SIGINT, "SIGINT", "sigint"},
                                       {SIGTERM, "SIGTERM", "sigterm"},
                                       {SIGHUP, "SIGHUP", "sighup"},
                                       {SIGQUIT, "SIGQUIT", "sigquit"}};

std::atomic<int> g_signal{0};
static_assert(std::atomic<int>::is_always_lock_free, "a signal handler may only touch lock-free atomics");

extern "C" void on_stop_signal(int signal) {
  g_signal.store(signal, std::memory_order_relaxed);
  std::signal(signal, SIG_DFL);
}

}  // namespace

void StopRequest::install_signal_handlers() {
  for (const auto& s : kStopSignals) std::signal(s.number, on_stop_signal);
}

std::string StopRequest::signal_name() {
  const int number = signal_number();
  for (const auto& s : kStopSignals) {
    if (s.number == number) return s.name;
  }
  return number == 0 ? "" : "signal " + std::to_string(number);
}

std::optional<int> StopRequest::signal_named(std::string_view lower_case_name) {
  for (const auto& s : kStopSignals) {
    if (lower_case_name == s.lower_case_name) return s.number;
  }
  return std::nullopt;
}

void stop_if_requested(int64_t next_step, int64_t steps) {
  if (!StopRequest::requested()) return;
  throw PassStopped(std::string(kStoppedBy) + StopRequest::signal_name() + " before step " +
                    std::to_string(next_step) + " of " + std::to_string(steps));
}

bool StopRequest::requested() { return g_signal.load(std::memory_order_relaxed) != 0; }

int StopRequest::signal_number() { return g_signal.load(std::memory_order_relaxed); }

void StopRequest::reset() { g_signal.store(0); }

}  // namespace ampbench::train
