#pragma once

// What the benchmarks share: the training work and nothing else, by the epoch or in blocks of steps, and
// the environment line every record starts with.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <string>

#include "data/batch_order.h"
#include "measure/device.h"
#include "measure/environment.h"
#include "measure/statistics.h"
#include "train/trainer_options.h"
#include "train/training_step.h"

namespace ampbench::benchmarks {

struct BareEpoch {
  double seconds = 0;
  int64_t timed_steps = 0;
};

// One model training on from where its last block of steps ended, so that two models can alternate in
// blocks of a few steps: on a shared machine whose speed drifts over seconds, blocks that short see the
// same machine, where whole epochs side by side do not. Batches come in the epoch's order, cut where the
// data lives as the Trainer cuts them, round and round.
class SteppedLoop {
 public:
  // Builds the step and runs the config's warm-up steps, untimed.
  SteppedLoop(const train::TrainerOptions& options, const data::Dataset& dataset, const torch::Device& device,
              amp::PrecisionMode mode, models::Network& model)
      : step_(options, mode, model, dataset, device),
        order_(data::epoch_order(options.seed, 1, dataset.train_size())),
        device_(device) {
    if (dataset.staged) order_ = order_.to(device);
    model.train();
    step_.zero_grad();
    run(options.train.warmup_steps);
    measure::synchronize(device_);
  }

  int64_t steps_per_epoch() const { return step_.steps_per_epoch(); }

  // The wall seconds of the next `steps` steps, the device synchronised at both ends.
  double time_steps(int64_t steps) {
    measure::synchronize(device_);
    const auto start = std::chrono::steady_clock::now();
    run(steps);
    measure::synchronize(device_);
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }

 private:
  void run(int64_t steps) {
    for (int64_t n = 0; n < steps; ++n, next_ = (next_ + 1) % step_.steps_per_epoch()) {
      if (step_.backward_and_step(step_.loss(order_, next_), next_)) step_.zero_grad();
    }
  }

  train::TrainingStep step_;
  torch::Tensor order_;
  torch::Device device_;
  int64_t next_ = 0;
};

// The training work of one epoch and nothing else: the Trainer's own TrainingStep, timed like the
// Trainer (device synchronised at both ends, the warm-up steps outside), without its measuring.
inline BareEpoch bare_epoch(const train::TrainerOptions& options, const data::Dataset& dataset,
                            const torch::Device& device, amp::PrecisionMode mode, models::Network& model) {
  SteppedLoop loop(options, dataset, device, mode, model);
  const int64_t timed_steps = loop.steps_per_epoch() - options.train.warmup_steps;
  return {loop.time_steps(timed_steps), timed_steps};
}

// Where the figures come from, as every ampbench report says it.
inline void print_environment(const measure::Environment& env) {
  std::printf("- ampbench %s (%s build, %s); LibTorch %s\n", env.git_commit.c_str(), env.build_type.c_str(),
              env.compiler.c_str(), env.libtorch_version.c_str());
  // On a GPU the host CPU still runs the loop around the kernels, so it is named as well.
  const std::string host_cpu = env.device_name == env.cpu_model ? "" : ", host " + env.cpu_model;
  std::printf("- Machine: %s (%s)%s, %d cores; torch threads: %d; host malloc: %s\n\n", env.device.c_str(),
              env.device_name.c_str(), host_cpu.c_str(), env.cpu_cores, env.torch_threads,
              env.host_malloc.c_str());
}

// Epochs run in pairs side by side, a base and another: each pair's ratio cancels the drift both saw.
struct PairedRounds {
  std::vector<double> base, other, ratios, extra_per_step;
  int64_t timed_steps = 0;
  void add(double base_seconds, double other_seconds) {
    base.push_back(base_seconds);
    other.push_back(other_seconds);
    ratios.push_back(other_seconds / base_seconds);
    extra_per_step.push_back((other_seconds - base_seconds) / double(timed_steps));
  }
};

// The table cells every paired benchmark ends a row with: the other's cost over the base as the median
// paired ratio with its 95 % bootstrap interval, the ratios' range, the time added per step (in `unit`,
// `per_second` of them to a second, `digits` decimals) with its interval, and the verdict against `goal`.
inline std::string paired_cells(const PairedRounds& r, double goal, double per_second, const char* unit,
                                int digits) {
  const auto cost = *measure::bootstrap_median(r.ratios);
  const auto per_step = *measure::bootstrap_median(r.extra_per_step);
  const std::string spans = "undecided: the interval spans " + std::to_string(std::lround(100 * goal)) + "%";
  const std::string verdict = cost.high - 1.0 <= goal ? "met" : cost.low - 1.0 > goal ? "not met" : spans;
  char cells[512];
  std::snprintf(
      cells, sizeof cells, "%+.2f%% [%+.2f%%, %+.2f%%] | %+.2f%% to %+.2f%% | %+.*f %s [%+.*f, %+.*f] | %s",
      100.0 * (*measure::median(r.ratios) - 1.0), 100.0 * (cost.low - 1.0), 100.0 * (cost.high - 1.0),
      100.0 * (*measure::min_of(r.ratios) - 1.0), 100.0 * (*measure::max_of(r.ratios) - 1.0), digits,
      per_second * *measure::median(r.extra_per_step), unit, digits, per_second * per_step.low, digits,
      per_second * per_step.high, verdict.c_str());
  return cells;
}

}  // namespace ampbench::benchmarks
