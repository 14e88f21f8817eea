#pragma once

#include <optional>
#include <string>

#include "config/experiment_config.h"

namespace ampbench::config {

// What a run of this config holds in memory from its first trial to its last, counted from the options
// before anything is made: a lower bound, since activations, LibTorch's workspaces and the allocator's
// slack come on top. fp32 throughout, as master weights are.
struct MemoryEstimate {
  double parameters = 0;           // the model's trained elements
  double training_bytes = 0;       // weights, buffers, gradients and optimizer state: on the training device
  double initial_state_bytes = 0;  // the initial state(s) every mode starts from: in host memory
  double data_bytes = 0;           // synthetic data, made in host memory (0 for a file source: read already)
};

MemoryEstimate estimate_memory(const ExperimentConfig& config);

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
