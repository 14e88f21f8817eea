#pragma once

#include <string>

namespace ampbench::measure {

// Fixes glibc malloc's thresholds, for the whole process, at the values its own dynamic rule reaches at
// most: blocks up to 32 MiB come from the heap, and the heap is handed back to the OS only past 64 MiB
// free. Left dynamic, they depend on the process's allocation history, and a CPU training loop, which
// frees and re-allocates the same activations every step, can end up returning them to the OS and
// faulting them in again each time (measured on ResNet-18: 1.5-6x the page faults of the same loop in
// PyTorch-Python, and about a fifth of the step time at batch 4). Call first thing in main, before any
// allocation worth keeping. Does nothing where the C library is not glibc.
void settle_host_malloc();

// What the process runs with, for the report: the thresholds above once settled, else "default".
std::string host_malloc_description();

}  // namespace ampbench::measure
