#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include <c10/core/Device.h>

namespace ampbench::measure {

// Peak memory of one trial. Bytes are counted above the baseline held when the trial began (the staged
// data set and the shared initial state), so the figure is what the trial itself needed: its weights
// copy, gradients, optimizer state and activations.
struct MemoryReading {
  std::string probe;                           // what measured it
  int64_t baseline_bytes = 0;                  // held when the trial began
  int64_t peak_bytes = 0;                      // peak allocated, above the baseline
  std::optional<int64_t> peak_reserved_bytes;  // CUDA caching allocator only: peak reserved, absolute
  // Held right after the first optimizer step, above the baseline: parameters, gradients and optimizer
  // state, which stay for the whole run. The rest of the peak is activations and temporaries.
  std::optional<int64_t> static_bytes;

  std::optional<int64_t> activation_peak_bytes() const {
    if (!static_bytes) return std::nullopt;
    return peak_bytes - *static_bytes;
  }
};

class MemoryProbe {
 public:
  virtual ~MemoryProbe() = default;
  // Records the baseline and starts a new peak.
  virtual void begin() = 0;
  // Records what is held now as the trial's static memory (see MemoryReading::static_bytes). A host-side
  // counter read: no device sync.
  void mark_static() { static_bytes_ = current_bytes() - baseline_; }
  MemoryReading read() const {
    auto reading = read_peaks();
    reading.baseline_bytes = baseline_;
    reading.static_bytes = static_bytes_;
    return reading;
  }

 protected:
  virtual int64_t current_bytes() const = 0;
  virtual MemoryReading read_peaks() const = 0;
  int64_t baseline_ = 0;
  std::optional<int64_t> static_bytes_;
};

// The CPU tracking allocator for the CPU, the CUDA caching allocator's statistics for a GPU.
std::unique_ptr<MemoryProbe> make_memory_probe(const c10::Device& device);

}  // namespace ampbench::measure
