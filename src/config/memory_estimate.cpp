#include "config/memory_estimate.h"

#include <spdlog/fmt/fmt.h>

#include "measure/host_memory.h"

namespace ampbench::config {
namespace {

constexpr double kFp32Bytes = 4;

std::string bytes(double count) { return measure::human_bytes(count); }

std::optional<std::string> host_shortfall(const MemoryEstimate& estimate, const MemoryOnHand& on_hand) {
  const bool training_on_host = !on_hand.gpu;
  const double training = training_on_host ? estimate.training_bytes : 0;
  const double needed = training + estimate.initial_state_bytes + estimate.data_bytes;
  if (!on_hand.host_available || needed <= *on_hand.host_available) return std::nullopt;
  const auto model =
      training_on_host ? "weights, gradients and optimizer state " + bytes(training) + ", " : "";
  return fmt::format(
      "training needs at least {} of host memory ({:.0f} parameters: {}the initial state {}, the data {}), "
      "and {} is available",
      bytes(needed), estimate.parameters, model, bytes(estimate.initial_state_bytes),
      bytes(estimate.data_bytes), bytes(*on_hand.host_available));
}

std::optional<std::string> gpu_shortfall(const MemoryEstimate& estimate, const MemoryOnHand& on_hand) {
  if (!on_hand.gpu || !on_hand.gpu_total || estimate.training_bytes <= *on_hand.gpu_total)
    return std::nullopt;
  return fmt::format(
      "training needs at least {} of memory on {} (weights, gradients and optimizer state of {:.0f} "
      "parameters), and the GPU has {}",
      bytes(estimate.training_bytes), *on_hand.gpu, estimate.parameters, bytes(*on_hand.gpu_total));
}

}  // namespace

MemoryEstimate estimate_memory(const ExperimentConfig& config) {
  const auto size = config.model.spec->size();
  MemoryEstimate estimate;
  estimate.parameters = size.parameters;
  // Weights and gradients, then the optimizer's state, all per parameter; buffers once.
  const double per_parameter = 2 + optim::state_per_parameter(config.train.optimizer);
  estimate.training_bytes = (per_parameter * size.parameters + size.buffers) * kFp32Bytes;
  // The run's initial state, and a second seed's while fidelity trains from other seeds.
  const double copies = config.precision.fidelity_seeds > 1 ? 2 : 1;
  estimate.initial_state_bytes = copies * (size.parameters + size.buffers) * kFp32Bytes;
  estimate.data_bytes = config.data.synthetic_bytes();
  return estimate;
}

std::optional<std::string> memory_shortfall(const MemoryEstimate& estimate, const MemoryOnHand& on_hand) {
  if (auto host = host_shortfall(estimate, on_hand)) return host;
  return gpu_shortfall(estimate, on_hand);
}

}  // namespace ampbench::config
