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
#include "passes/pass_records.h"
#include "train/progress.h"
#include "train/trainer_options.h"

namespace ampbench::train {

struct PassContext;
struct PlannedTrial;
struct ExperimentResult;

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
