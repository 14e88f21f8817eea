#include "measure/cpu_tracking_allocator.h"

#include <atomic>
#include <cstring>
#include <mutex>

#include <c10/core/CPUAllocator.h>

namespace ampbench::measure {
namespace {

std::atomic<int64_t> g_current{0};
std::atomic<int64_t> g_peak{0};

// Each block carries its size in a header in front of the data. The header is as large as c10's
// alignment, so the data keeps the alignment LibTorch expects, and data == context, so the raw
// allocate/deallocate interface keeps working.
constexpr size_t kHeader = 64;

// The allocator that was in place before ours; blocks are carved out of it.
c10::Allocator* g_underlying = nullptr;

void record(int64_t delta) {
  int64_t now = g_current.fetch_add(delta, std::memory_order_relaxed) + delta;
  int64_t peak = g_peak.load(std::memory_order_relaxed);
  while (now > peak && !g_peak.compare_exchange_weak(peak, now, std::memory_order_relaxed)) {
  }
}

void delete_tracked(void* data) {
  if (data == nullptr) return;
  auto* base = static_cast<char*>(data) - kHeader;
  size_t size;
  std::memcpy(&size, base, sizeof size);
  record(-static_cast<int64_t>(size));
  g_underlying->raw_deallocate(base);
}

class TrackingAllocator final : public c10::Allocator {
 public:
  c10::DataPtr allocate(size_t n) override {
    void* base = g_underlying->raw_allocate(n + kHeader);
    std::memcpy(base, &n, sizeof n);
    record(static_cast<int64_t>(n));
    void* data = static_cast<char*>(base) + kHeader;
    return {data, data, &delete_tracked, c10::Device(c10::DeviceType::CPU)};
  }
  c10::DeleterFnPtr raw_deleter() const override { return &delete_tracked; }
  void copy_data(void* dest, const void* src, std::size_t count) const override {
    default_copy_data(dest, src, count);
  }
};

TrackingAllocator g_tracking_allocator;
std::once_flag g_install_once;

}  // namespace

void CpuTrackingAllocator::install() {
  std::call_once(g_install_once, [] {
    g_underlying = c10::GetCPUAllocator();
    // The highest priority, so that nothing registered later silently replaces the counting allocator.
    c10::SetCPUAllocator(&g_tracking_allocator, /*priority=*/255);
  });
}

bool CpuTrackingAllocator::installed() { return c10::GetCPUAllocator() == &g_tracking_allocator; }

int64_t CpuTrackingAllocator::current_bytes() { return g_current.load(); }

int64_t CpuTrackingAllocator::peak_bytes() { return g_peak.load(); }

void CpuTrackingAllocator::reset_peak() { g_peak.store(g_current.load()); }

}  // namespace ampbench::measure
