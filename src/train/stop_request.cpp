#include "train/stop_request.h"

#include <atomic>
#include <csignal>

namespace ampbench::train {
namespace {

std::atomic<int> g_signal{0};
static_assert(std::atomic<int>::is_always_lock_free, "a signal handler may only touch lock-free atomics");

extern "C" void on_stop_signal(int signal) {
  g_signal.store(signal, std::memory_order_relaxed);
  std::signal(signal, SIG_DFL);
}

}  // namespace

void StopRequest::install_signal_handlers() {
  std::signal(SIGINT, on_stop_signal);
  std::signal(SIGTERM, on_stop_signal);
}

bool StopRequest::requested() { return g_signal.load(std::memory_order_relaxed) != 0; }

int StopRequest::signal_number() { return g_signal.load(std::memory_order_relaxed); }

void StopRequest::reset() { g_signal.store(0); }

}  // namespace ampbench::train
