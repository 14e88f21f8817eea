#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <ATen/record_function.h>
#include <torch/torch.h>

#include "numerics/layer_ranges.h"

namespace ampbench::numerics {

// Watches every op (LibTorch's RecordFunction, forward and backward) from construction to destruction and
// measures, per layer, the results in `format` (fp16 or bf16) of its outermost ops: a nested op's result is
// its caller's (autocast's casts, a composite op's parts), and a view of an argument holds no new values.
// With `loss_scale` (fp16 under a GradScaler: the scale in force), each backward result is also divided by it
// and rounded back into the format (RangeFigures' unscaled counts). The figures are counted on the device
// and read by layers() (a sync): an observer belongs in an untimed pass, never in a timed trial. One
// observer of either kind at a time.
class RangeObserver {
 public:
  RangeObserver(const std::vector<std::pair<std::string, torch::Tensor>>& parameters, c10::ScalarType format,
                std::optional<double> loss_scale = std::nullopt);
  ~RangeObserver();
  RangeObserver(const RangeObserver&) = delete;
  RangeObserver& operator=(const RangeObserver&) = delete;

  // Each layer, in the order its first op ran. Throws std::runtime_error with the first line of the first
  // error a callback met (out of memory reading a result back, say), which LibTorch would only have printed.
  std::vector<LayerRanges> layers() const;

 private:
  at::CallbackHandle handle_ = 0;
};

}  // namespace ampbench::numerics
