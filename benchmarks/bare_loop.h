#pragma once

// What the benchmarks share: one epoch of the training work and nothing else, and the environment line
// every record starts with.
#include <chrono>
#include <cstdio>

#include "data/batch_order.h"
#include "measure/device.h"
#include "measure/environment.h"
#include "train/trainer_options.h"
#include "train/training_step.h"

namespace ampbench::benchmarks {

struct BareEpoch {
  double seconds = 0;
  int64_t timed_steps = 0;
};

// The training work of one epoch and nothing else: the Trainer's own TrainingStep, timed like the
// Trainer (device synchronised at both ends, the warm-up steps outside), without its measuring.
inline BareEpoch bare_epoch(const train::TrainerOptions& options, const data::Dataset& dataset,
                            const torch::Device& device, amp::PrecisionMode mode, models::Network& model) {
  train::TrainingStep step(options, mode, model, dataset, device);
  // Batches are cut where the data lives, as the Trainer cuts them.
  auto order = data::epoch_order(options.seed, 1, dataset.train_size());
  if (dataset.staged) order = order.to(device);
  model.train();
  step.zero_grad();
  auto run = [&](int64_t i) {
    if (step.backward_and_step(step.loss(order, i), i)) step.zero_grad();
  };
  const int64_t warmup = options.train.warmup_steps;
  for (int64_t i = 0; i < warmup; ++i) run(i);
  measure::synchronize(device);
  const auto start = std::chrono::steady_clock::now();
  for (int64_t i = warmup; i < step.steps_per_epoch(); ++i) run(i);
  measure::synchronize(device);
  return {std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(),
          step.steps_per_epoch() - warmup};
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

}  // namespace ampbench::benchmarks
