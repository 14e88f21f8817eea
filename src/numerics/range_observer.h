#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <ATen/record_function.h>
#include <torch/torch.h>

namespace ampbench::numerics {

// How large the values that a layer's ops produced in a 16-bit format were.
struct RangeFigures {
  double largest = 0;    // the largest finite magnitude
  int64_t elements = 0;  // the elements produced
  int64_t nonzero = 0;
  int64_t subnormal = 0;  // nonzero and below the format's smallest normal: precision lost to underflow
  int64_t nonfinite = 0;  // inf or NaN
  // Gradients under a loss scale only: of the nonzero elements, those that divided by the scale and rounded
  // back into the format flush to zero or turn subnormal. What backward would have produced without the
  // scaler is at least this: the ops before would have underflowed too (a lower bound).
  int64_t flushed_unscaled = 0, subnormal_unscaled = 0;
};

// One layer's figures: a reference model's module ("layers.2"), "after M" for the weight-free ops after
// module M (an activation function), "(input)" before the first layer, "(loss)"; an exported model's module
// path, or its node's name at the root.
struct LayerRanges {
  std::string layer;
  RangeFigures forward;   // the activations: what its forward ops returned
  RangeFigures backward;  // the gradients its backward ops returned (fp16: at the loss scale in force)
};

// Adds `from` into `into`, layer by layer (new layers at the end).
void merge_ranges(std::vector<LayerRanges>& into, const std::vector<LayerRanges>& from);

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
