#include "measure/cpu_tracking_allocator.h"

#include <atomic>
#include <cstring>
#include <limits>
#include <mutex>

#include <c10/core/CPUAllocator.h>
#include <c10/util/Exception.h>

namespace ampbench::measure {
namespace {

std::atomic<int64_t> g_current{0};
std::atomic<int64_t> g_peak{0};
constexpr int64_t kNoLimit = std::numeric_limits<int64_t>::max();
std::atomic<int64_t> g_limit{kNoLimit};

// Each block carries its size in a header in front of the data. The header is as large as c10's
// alignment, so the data keeps the alignment LibTorch expects, and data == context, so the raw
// allocate/deallocate interface keeps working.
constexpr size_t kHeader = 64;

// The allocator that was in place before ours; blocks are carved out of it.
c10::Allocator* g_underlying = nullptr;

void raise_peak(int64_t now) {
  int64_t peak = g_peak.load(std::memory_order_relaxed);
  while (now > peak && !g_peak.compare_exchange_weak(peak, now, std::memory_order_relaxed)) {
  }
}

void record(int64_t delta) { raise_peak(g_current.fetch_add(delta, std::memory_order_relaxed) + delta); }

// Counts `bytes` as held, or throws when they would take the bytes held past the limit. Added first and
// taken back on refusal, so that two threads cannot both pass the check with room for one.
void reserve(int64_t bytes) {
  const int64_t now = g_current.fetch_add(bytes, std::memory_order_relaxed) + bytes;
  const int64_t limit = g_limit.load(std::memory_order_relaxed);
  if (now > limit) {
    g_current.fetch_sub(bytes, std::memory_order_relaxed);
    TORCH_CHECK_WITH(OutOfMemoryError, false, "CPU tracking allocator: out of memory: tried to allocate ",
                     bytes, " bytes with ", now - bytes, " held of a budget of ", limit, " bytes");
  }
  raise_peak(now);
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
    reserve(static_cast<int64_t>(n));
    void* base = nullptr;
    try {
      base = g_underlying->raw_allocate(n + kHeader);
    } catch (...) {
      record(-static_cast<int64_t>(n));
      throw;
    }
    std::memcpy(base, &n, sizeof n);
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

void CpuTrackingAllocator::set_limit(std::optional<int64_t> bytes) {
  g_limit.store(bytes.value_or(kNoLimit));
}

}  // namespace ampbench::measure
