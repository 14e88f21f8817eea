#pragma once

#include <c10/util/Exception.h>

namespace ampbench::train {

// Whether an error means that memory ran out, so that the trial is reported as `oom` (a size that does
// not fit) rather than `failed`. The CUDA caching allocator throws c10::OutOfMemoryError; other
// allocations that fail arrive as plain errors and are recognised by their message: the CPU allocator's,
// a cuBLAS/cuDNN handle or workspace (`..._STATUS_ALLOC_FAILED`), a cudaMalloc outside the cache.
bool is_out_of_memory(const c10::Error& error);

}  // namespace ampbench::train
