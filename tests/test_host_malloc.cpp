// settle_host_malloc: after it, blocks that glibc's default thresholds would map and unmap afresh (and
// whose pages would fault in again) come from the heap, and freeing them does not shrink the heap.
#include <cstdlib>
#include <cstring>
#include <string>

#include <gtest/gtest.h>

#include "measure/host_malloc.h"

#if defined(__GLIBC__)
#include <malloc.h>

namespace {

constexpr size_t kBlock = 24 << 20;  // above glibc's default mmap threshold, below the settled one

// Bytes glibc holds in mmapped blocks, and the main heap's size.
size_t mapped_bytes() { return mallinfo2().hblkhd; }
size_t heap_bytes() { return mallinfo2().arena; }

void* touched_block() {
  void* block = std::malloc(kBlock);
  std::memset(block, 1, kBlock);
  return block;
}

// This test binary does not link tcmalloc, so its malloc is glibc's, unless a sanitizer's runtime
// intercepts it (and these glibc probes do not apply).
TEST(HostMalloc, TellsGlibcsMallocFromAReplacement) {
  const std::string library = ampbench::measure::malloc_library_path();
#if defined(__SANITIZE_ADDRESS__)
  EXPECT_FALSE(ampbench::measure::malloc_is_glibc()) << library;
#else
  EXPECT_TRUE(ampbench::measure::malloc_is_glibc()) << library;
#endif
}

TEST(HostMalloc, SettledThresholdsKeepLargeBlocksOnTheHeap) {
  if (!ampbench::measure::malloc_is_glibc())
    GTEST_SKIP() << "malloc comes from " << ampbench::measure::malloc_library_path();
  // Start from glibc's defaults, as a fresh process does: the block is mapped (this proves the probe).
  ASSERT_EQ(mallopt(M_MMAP_THRESHOLD, 128 << 10), 1);
  ASSERT_EQ(mallopt(M_TRIM_THRESHOLD, 128 << 10), 1);
  size_t before = mapped_bytes();
  void* block = touched_block();
  EXPECT_GE(mapped_bytes(), before + kBlock);
  std::free(block);

  ampbench::measure::settle_host_malloc();
  EXPECT_EQ(ampbench::measure::host_malloc_description(),
            "glibc: mmap threshold 32 MiB, trim threshold 64 MiB (fixed)");
  before = mapped_bytes();
  block = touched_block();
  EXPECT_EQ(mapped_bytes(), before);  // from the heap
  size_t heap = heap_bytes();
  std::free(block);
  EXPECT_EQ(heap_bytes(), heap);  // kept for the next step, not handed back to the OS
}

}  // namespace
#endif
