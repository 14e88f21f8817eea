#include "config/memory_estimate.h"

#include <algorithm>

#include <spdlog/fmt/fmt.h>

#include "measure/host_memory.h"
#include "optim/optimizer.h"

namespace ampbench::config {
namespace {

constexpr double kFp32Bytes = 4;

// Weights, gradients and the optimizer's state per parameter, Kahan's compensation, and the buffers, in the
// mode's weight dtype.
double static_bytes_of(amp::PrecisionMode mode, const models::ModelSize& size,
                       const optim::OptimizerOptions& optimizer) {
  const double per_parameter = 2 + optim::state_per_parameter(optimizer) +
                               (amp::recipe_of(mode).update_rounding == optim::WeightRounding::kahan ? 1 : 0);
  return (per_parameter * size.parameters + size.buffers) *
         double(c10::elementSize(amp::recipe_of(mode).weights));
}

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
  estimate.fp32_static_bytes = static_bytes_of(amp::PrecisionMode::fp32, size, config.train.optimizer);
  for (auto mode : config.precision.modes) {
    const double bytes = static_bytes_of(mode, size, config.train.optimizer);
    estimate.static_bytes[mode] = bytes;
    estimate.training_bytes = std::max(estimate.training_bytes, bytes);
  }
  // The run's initial state, and a second seed's while fidelity trains from other seeds.
  const double copies = config.precision.fidelity_seeds > 1 ? 2 : 1;
  estimate.initial_state_bytes = copies * (size.parameters + size.buffers) * kFp32Bytes;
  estimate.data_bytes = config.data.synthetic_bytes();
  return estimate;
}

std::string static_memory_line(const MemoryEstimate& estimate) {
  std::string line = "fp32 " + bytes(estimate.fp32_static_bytes);
  for (const auto& [mode, count] : estimate.static_bytes) {
    if (mode == amp::PrecisionMode::fp32 || estimate.fp32_static_bytes <= 0) continue;
    line += fmt::format(", {} {} ({:.2f}x fp32)", amp::to_string(mode), bytes(count),
                        count / estimate.fp32_static_bytes);
  }
  return line;
}

std::optional<std::string> memory_shortfall(const MemoryEstimate& estimate, const MemoryOnHand& on_hand) {
  if (auto host = host_shortfall(estimate, on_hand)) return host;
  return gpu_shortfall(estimate, on_hand);
}

}  // namespace ampbench::config
