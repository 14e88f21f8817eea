#include "measure/host_malloc.h"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace ampbench::measure {
namespace {

constexpr int kMmapThreshold = 32 << 20;  // glibc's DEFAULT_MMAP_THRESHOLD_MAX on 64-bit: its largest
constexpr int kTrimThreshold = 64 << 20;  // what glibc's rule pairs with it: twice the mmap threshold
bool g_settled = false;

}  // namespace

void settle_host_malloc() {
#if defined(__GLIBC__)
  g_settled =
      mallopt(M_MMAP_THRESHOLD, kMmapThreshold) == 1 && mallopt(M_TRIM_THRESHOLD, kTrimThreshold) == 1;
#endif
}

std::string host_malloc_description() {
  return g_settled ? "glibc: mmap threshold 32 MiB, trim threshold 64 MiB (fixed)" : "default";
}

}  // namespace ampbench::measure
