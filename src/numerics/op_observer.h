#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <ATen/record_function.h>
#include <torch/torch.h>

#include "numerics/formats.h"
#include "numerics/op_facts.h"
#include "numerics/op_sites.h"
#include "numerics/phase.h"

namespace ampbench::numerics {

// Watches every op on every thread (LibTorch's RecordFunction, forward and backward) from construction to
// destruction and keeps the first that made inf or NaN: an output holds them (for an op that returns
// nothing, an argument it wrote: the fused optimizer and unscale kernels) though every floating input was
// finite. An op that carries non-finite inputs along did not make them, nor one handed an infinite number
// (an attention mask's masked_fill with -inf), nor one that allocates without writing (empty). The checks
// read every output back to the host: an observer belongs in an untimed replay, never in a timed trial.
// `parameters`, named as the model names them ("layers.2.weight"), tell which module an op's weights belong
// to. One observer at a time.
class NonFiniteObserver {
 public:
  explicit NonFiniteObserver(const std::vector<std::pair<std::string, torch::Tensor>>& parameters);
  ~NonFiniteObserver();
  NonFiniteObserver(const NonFiniteObserver&) = delete;
  NonFiniteObserver& operator=(const NonFiniteObserver&) = delete;

  std::optional<NonFiniteOp> first() const;

 private:
  at::CallbackHandle handle_ = 0;
};

}  // namespace ampbench::numerics
