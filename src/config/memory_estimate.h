#pragma once

#include <map>
#include <optional>
#include <string>

#include "config/experiment_config.h"

namespace ampbench::config {

// What a run of this config holds in memory from its first trial to its last, counted from the options
// before anything is made: a lower bound, since activations, LibTorch's workspaces and the allocator's
// slack come on top. fp32, as master weights are, except in the pure bf16 modes, which hold all of it in
// bf16.
struct MemoryEstimate {
  double parameters = 0;  // the model's trained elements
  // Per mode of the config: weights, buffers, gradients and optimizer state (and Kahan's compensation).
  std::map<amp::PrecisionMode, double> static_bytes;
  double training_bytes = 0;       // the largest of static_bytes: on the training device
  double initial_state_bytes = 0;  // the initial state(s) every mode starts from: in host memory
  double data_bytes = 0;           // synthetic data, made in host memory (0 for a file source: read already)
  double fp32_static_bytes = 0;    // what fp32's static_bytes are, the reference each mode is put against
};

MemoryEstimate estimate_memory(const ExperimentConfig& config);

// "fp32 70.4 GiB, bf16-pure 35.2 GiB (0.50x fp32)": each mode's static bytes, with its ratio to fp32's,
// for a dry run's log; fp32's figure leads even where fp32 is not a mode of the run.
std::string static_memory_line(const MemoryEstimate& estimate);

// What this machine offers a run, in bytes.
struct MemoryOnHand {
  std::optional<double> host_available;  // host memory available now; unknown off Linux
  std::optional<std::string> gpu;        // the GPU that trains ("cuda:0"); none on the CPU
  std::optional<double> gpu_total;       // all its memory (what is free changes under other processes)
};

// One line saying what cannot fit, with what it needs and what there is: on the CPU everything is in host
// memory; on a GPU the weights, gradients and optimizer state are there, and the initial state and the
// data (before it is staged) in host memory. nullopt when it fits, or where a figure is unknown.
std::optional<std::string> memory_shortfall(const MemoryEstimate& estimate, const MemoryOnHand& on_hand);

}  // namespace ampbench::config
