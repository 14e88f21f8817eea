#pragma once

#include <string>

namespace ampbench::measure {

// How the process allocates host memory, settled first thing in main, before any allocation worth
// keeping. On the CPU every op of a training step allocates its outputs and temporaries from malloc
// and frees them again, so the allocator is part of the step time:
// - Where the executable links a malloc that replaces glibc's (the build links gperftools' tcmalloc when
//   installed, see cmake/HostMalloc.cmake: per-thread caches for the small blocks, no trimming), it is
//   left as it is. What it is worth against glibc is measured in results/bench-vs-pytorch/.
// - With glibc's malloc, its thresholds are fixed at the values its own dynamic rule reaches at most:
//   blocks up to 32 MiB come from the heap, and the heap is handed back to the OS only past 64 MiB free.
//   Left dynamic, they depend on the process's allocation history, and the loop can end up returning
//   its activations to the OS and faulting them in again each time (results/bench-vs-pytorch/ records
//   what that cost).
// Does nothing where the C library is not glibc.
void settle_host_malloc();

// The file malloc resolves to in this process: glibc's libc, or a library that replaces it (linked or
// preloaded). Empty where the dynamic linker cannot say.
std::string malloc_library_path();

// Whether malloc is glibc's own: false where a library replaces it (tcmalloc, a sanitizer's runtime) or
// where the dynamic linker cannot say.
bool malloc_is_glibc();

// What the process runs with, for the report: the replacing library's path, or glibc's thresholds once
// settled, else "default".
std::string host_malloc_description();

}  // namespace ampbench::measure
