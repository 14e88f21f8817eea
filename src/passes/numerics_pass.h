#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <torch/torch.h>

#include "amp/precision_mode.h"
#include "data/dataset.h"
#include "models/network.h"
#include "numerics/range_observer.h"
#include "passes/departure.h"
#include "train/progress.h"
#include "train/trainer_options.h"

namespace ampbench::train {

struct PassContext;
struct PlannedTrial;
struct ExperimentResult;

// One parameter's gradients and updates at the sampled steps, summed over them (elements: its size times the
// steps). Gradients are read after backward, before any unscaling or clipping: the parameter's own gradient
// (fp32 for fp32 master weights), whose underflow in backward's 16-bit tensors the layers' figures count.
// Updates are what the optimizer computed in fp32 before the weight stored it.
struct ParameterNumerics {
  std::string name;  // "layers.2.weight"
  int64_t elements = 0;
  double gradient_largest = 0;           // the largest finite |gradient|, unscaled
  double gradient_largest_at_scale = 0;  // and as it was, at the loss scale in force (fp16)
  int64_t gradient_nonfinite = 0;
  int64_t gradient_nonzero = 0;
  double update_squares = 0, weight_squares = 0;  // sums of squares, before the step: the update/weight ratio
  int64_t updates = 0;  // elements the step changed (or, fp32 weights, would change)
  // Of them, those that would be lost were the weight stored in the format (rounded to nearest, the update
  // below half its ulp); empty where the weights are stored in it already (the pure bf16 modes: their
  // lost-update audit counts the updates rounding actually lost).
  std::optional<int64_t> updates_lost;
};

// A 16-bit mode's numerics pass: how close its values ran to the format's limits.
struct NumericsRecord {
  amp::PrecisionMode mode = amp::PrecisionMode::fp16;
  c10::ScalarType format = c10::ScalarType::Half;  // the mode's 16-bit format
  std::vector<int64_t> steps;                      // the sampled optimizer steps, 1-based over the trial
  std::vector<double> loss_scales;                 // fp16: the loss scale in force at each sampled step
  std::vector<numerics::LayerRanges> layers;       // activations and gradients, per layer
  std::vector<ParameterNumerics> parameters;
  // Each linear layer against an fp32 copy of the model on the same batches (departure.h), in the order the
  // layers first ran.
  std::vector<LayerDeparture> departures;
  // The pass failed (an error's first line): no figures; or it was stopped ("stopped by SIGTERM before step 5
  // of 8", train::kStoppedBy): `steps` are those it measured before, with their figures.
  std::optional<std::string> failure;
};

// Replays a trial of `mode` (one whose row has an observed_format) from `model` (fresh from the run's initial
// state) with the trainer's options, data order and seed, outside any timed region, and measures `samples`
// optimizer steps spread over the trial: each under a numerics::RangeObserver, its gradients and update read
// after it; with `fp32_twin` (a model of the same architecture in fp32), each also against the twin given
// the mode's weights at that step (departures). Its steps are shown in `progress`. A stop request ends it
// before its next step, the steps measured kept (NumericsRecord::failure).
NumericsRecord measure_numerics(amp::PrecisionMode mode, models::Network& model,
                                const TrainerOptions& options, const data::Dataset& dataset,
                                const torch::Device& device, int64_t samples,
                                std::shared_ptr<models::Network> fp32_twin = nullptr,
                                Progress* progress = nullptr);

// The pass (pass_context.h): the numerics of item.mode (a row with an observed_format) into
// result.numerics, an error recorded in it.
void run_numerics_pass(const PlannedTrial& item, PassContext& context, ExperimentResult& result);

}  // namespace ampbench::train
