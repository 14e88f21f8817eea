#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <torch/torch.h>

#include "amp/linear_observer.h"
#include "models/network.h"
#include "passes/pass_records.h"

namespace ampbench::train {

// An fp32 copy of a mode's model, run on a batch as the mode's is: it takes the mode's current weights and
// buffers, then runs forward, the loss and backward in fp32 (no autocast, no float8 layers) under a
// LinearObserver.
class Fp32Twin {
 public:
  explicit Fp32Twin(std::shared_ptr<models::Network> model);
  amp::LinearObservation run(const models::Network& mode_model, const torch::Tensor& inputs,
                             const torch::Tensor& labels);
  const models::Network& model() const { return *model_; }

 private:
  std::shared_ptr<models::Network> model_;
};

// The weight gradients of `model`'s parameters, cloned: what a step adds to them is the difference.
std::vector<torch::Tensor> gradients_of(const models::Network& model);

// Adds one sampled step into `layers`, call by call in the order both ran (one architecture): the mode's
// observation and outputs against the twin's, the mode's weight gradients less `before` (what the step
// added), divided by the step's `loss_scale` where it has one, against the twin's. Layers are named by the
// caller's name or their weight parameter's.
void add_departures(std::vector<LayerDeparture>& layers, const amp::LinearObservation& mode,
                    const amp::LinearObservation& fp32, const models::Network& mode_model,
                    const std::vector<torch::Tensor>& before, std::optional<double> loss_scale,
                    const Fp32Twin& twin);

}  // namespace ampbench::train
