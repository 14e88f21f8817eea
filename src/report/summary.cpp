#include "report/summary.h"

#include <algorithm>

namespace ampbench::report {
namespace {

// The first epoch pays one-off costs (allocator growth, kernel selection); leave it out when there
// are others to compare.
std::vector<const EpochRecord*> compared_epochs(const ModeRecord& mode) {
  std::vector<const EpochRecord*> out;
  for (const auto& e : mode.epochs) out.push_back(&e);
  if (out.size() > 1) out.erase(out.begin());
  return out;
}

double throughput(const std::vector<const EpochRecord*>& epochs) {
  double samples = 0, seconds = 0;
  for (const auto* e : epochs) samples += static_cast<double>(e->timed_samples), seconds += e->seconds;
  return seconds > 0 ? samples / seconds : 0.0;
}

}  // namespace

std::vector<ModeSummary> summarize(const std::vector<ModeRecord>& modes) {
  auto baseline = std::find_if(modes.begin(), modes.end(), [](const ModeRecord& m) {
    return m.mode == amp::PrecisionMode::fp32 && !m.epochs.empty();
  });
  std::optional<double> baseline_throughput;
  if (baseline != modes.end()) baseline_throughput = throughput(compared_epochs(*baseline));

  std::vector<ModeSummary> out;
  for (const auto& mode : modes) {
    if (mode.epochs.empty()) continue;
    ModeSummary s;
    s.mode = mode.mode;
    auto epochs = compared_epochs(mode);
    for (const auto* e : epochs) s.epochs_compared.push_back(e->epoch);
    s.samples_per_second = throughput(epochs);
    if (baseline != modes.end()) {
      if (*baseline_throughput > 0) s.speedup_vs_fp32 = s.samples_per_second / *baseline_throughput;
      if (baseline->memory.peak_bytes > 0) {
        s.memory_ratio_vs_fp32 =
            static_cast<double>(mode.memory.peak_bytes) / static_cast<double>(baseline->memory.peak_bytes);
      }
      s.val_loss_delta_vs_fp32 = mode.epochs.back().val_loss - baseline->epochs.back().val_loss;
    }
    out.push_back(s);
  }
  return out;
}

}  // namespace ampbench::report
