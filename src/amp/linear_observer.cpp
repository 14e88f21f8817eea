#include "amp/linear_observer.h"

#include <atomic>
#include <mutex>

#include "amp/record_scopes.h"

namespace ampbench::amp {
namespace {

std::atomic<LinearObservation*> g_observation{nullptr};
std::mutex g_mutex;  // backward's operands may arrive from the autograd engine's threads

thread_local int t_preparing = 0;

}  // namespace

OperandScope::OperandScope() : marker_(at::RecordScope::USER_SCOPE) {
  ++t_preparing;
  if (marker_.isActive()) marker_.before(kOperandsMarker);
}
OperandScope::~OperandScope() { --t_preparing; }
bool preparing_operands() { return t_preparing > 0; }

LinearObserver::LinearObserver(LinearObservation& into) {
  LinearObservation* none = nullptr;
  TORCH_CHECK(g_observation.compare_exchange_strong(none, &into), "a linear observer is installed already");
}

LinearObserver::~LinearObserver() { g_observation.store(nullptr); }

bool observing_linear_layers() { return g_observation.load(std::memory_order_relaxed) != nullptr; }

void observe_output(const void* key, const torch::Tensor& weight, const std::string* name,
                    const torch::Tensor& output) {
  auto* observation = g_observation.load(std::memory_order_relaxed);
  if (!observation) return;
  const auto copy = output.detach().to(torch::kFloat32, /*non_blocking=*/false, /*copy=*/true);
  std::lock_guard lock(g_mutex);
  observation->outputs.push_back({key, weight.unsafeGetTensorImpl(), name ? *name : std::string(), copy});
}

void observe_operand(const void* key, const std::string& operand, const torch::Tensor& original,
                     const BlockQuantized& quantized) {
  auto* observation = g_observation.load(std::memory_order_relaxed);
  if (!observation) return;
  const auto x = original.detach().to(torch::kFloat32);
  const auto figures = torch::stack({(quantized.values - x).square().sum(), x.square().sum(), x.abs().max(),
                                     quantized.saturated.to(torch::kFloat32).to(x.device()),
                                     quantized.flushed.to(torch::kFloat32).to(x.device())})
                           .to(torch::kDouble)
                           .cpu();
  const auto* f = figures.data_ptr<double>();
  std::lock_guard lock(g_mutex);
  auto& into = observation->operands[{key, operand}];
  into.blocks += quantized.blocks;
  into.error_squares += f[0];
  into.squares += f[1];
  into.largest = std::max(into.largest, f[2]);
  into.saturated += int64_t(f[3]);
  into.flushed += int64_t(f[4]);
}

}  // namespace ampbench::amp
