#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include <torch/torch.h>

namespace ampbench::measure {

// Peak memory of one precision mode. Bytes are counted above the baseline held when the mode began
// (the staged data set and the shared initial state), so the figure is what the mode itself needed:
// its weights copy, gradients, optimizer state and activations.
struct MemoryReading {
  std::string probe;                           // what measured it
  int64_t baseline_bytes = 0;                  // held when the mode began
  int64_t peak_bytes = 0;                      // peak allocated, above the baseline
  std::optional<int64_t> peak_reserved_bytes;  // CUDA caching allocator only: peak reserved, absolute
};

class MemoryProbe {
 public:
  virtual ~MemoryProbe() = default;
  // Records the baseline and starts a new peak.
  virtual void begin() = 0;
  virtual MemoryReading read() const = 0;
};

// The CPU tracking allocator for the CPU, the CUDA caching allocator's statistics for a GPU.
std::unique_ptr<MemoryProbe> make_memory_probe(const torch::Device& device);

}  // namespace ampbench::measure
