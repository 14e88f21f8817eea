// How much ampbench's measuring costs: one epoch of the Trainer (per-step losses kept on the device,
// step-time marks, the fp16 loss-scale trace, stop and progress checks) against a bare loop of the same
// training work, from the same initial weights, on the same batches. Rounds alternate the order (bare
// first, then Trainer first, ...) so that drift and warm caches favour neither.
//
// Usage: instrumentation_overhead --config FILE [--modes fp32,bf16] [--rounds N] [--train-samples N]
// Prints a Markdown table: median epoch seconds of each; the overhead as the median of the rounds' paired
// ratios with a 95 % bootstrap interval and their range; the same as time added per step; and a verdict
// against the 1 % goal. The per-step figure is what carries over to other models: the Trainer's additions
// do not grow with the model, so a tiny model, where they weigh most, measures them best.
#include <chrono>
#include <cstdio>
#include <iostream>

#include <spdlog/spdlog.h>
#include <CLI/CLI.hpp>

#include "amp/math_settings.h"
#include "amp/mode_support.h"
#include "app/command_line.h"
#include "app/exit_codes.h"
#include "config/experiment_config.h"
#include "config/resolve.h"
#include "data/batch_order.h"
#include "measure/device.h"
#include "measure/environment.h"
#include "measure/host_malloc.h"
#include "measure/statistics.h"
#include "train/model_state.h"
#include "train/trainer.h"
#include "train/training_step.h"

#include "bare_loop.h"

using namespace ampbench;
using benchmarks::bare_epoch;
using benchmarks::PairedRounds;
using benchmarks::print_environment;

namespace {

constexpr double kGoal = 0.01;  // the Trainer may cost at most 1 % over the bare loop

struct Arguments {
  std::string config_path;
  std::vector<std::string> modes;
  int rounds = 10;
  std::optional<int64_t> train_samples;
  std::optional<std::string> device_spec;
};

void add_options(CLI::App& app, Arguments& args) {
  app.add_option("-c,--config", args.config_path, "experiment config (JSON)")
      ->required()
      ->check(CLI::ExistingFile);
  app.add_option("--modes", args.modes, "precision modes (default: the config's)")->delimiter(',');
  app.add_option("--device", args.device_spec, "auto, cpu, cuda or cuda:N (default: the config's)");
  app.add_option("--rounds", args.rounds, "alternating rounds per mode")->check(CLI::Range(2, 1000));
  app.add_option("--train-samples", args.train_samples,
                 "training samples per epoch (default: the config's): longer epochs, less noise per round")
      ->check(CLI::PositiveNumber);
}

// The config with the benchmark's overrides: one epoch, and the modes, device and samples asked for.
config::ExperimentConfig read_config(const Arguments& args) {
  auto doc = config::read_config_file(args.config_path);
  if (!args.modes.empty()) doc["precision"]["modes"] = args.modes;
  if (args.device_spec) doc["device"] = *args.device_spec;
  doc["train"]["epochs"] = 1;
  if (args.train_samples) {
    for (auto& [source, options] : doc["data"].items()) options["train_samples"] = *args.train_samples;
  }
  return config::parse_experiment_config(doc);
}

// The epoch times of `rounds` alternating pairs, bare loop (the base) and Trainer, from the same initial
// state.
PairedRounds run_rounds(const config::ExperimentConfig& config, const data::Dataset& dataset,
                        const torch::Device& device, amp::PrecisionMode mode, int rounds,
                        const train::ModelState& initial) {
  const train::Trainer trainer(train::TrainerOptions::from(config), dataset, device);
  PairedRounds out;
  auto fresh = [&] {
    auto model = config.model.spec->build();
    initial.restore_into(*model);
    model->to(device);
    return model;
  };
  auto run_bare = [&] { return bare_epoch(trainer.options(), dataset, device, mode, *fresh()).seconds; };
  auto run_trainer = [&] {
    train::TrialRecord record;
    trainer.run(mode, *fresh(), record);
    out.timed_steps = record.epochs.at(0).timed_steps;
    return record.epochs.at(0).seconds;
  };
  for (int round = 0; round < rounds; ++round) {
    double bare = 0, instrumented = 0;
    if (round % 2 == 0) {
      bare = run_bare();
      instrumented = run_trainer();
    } else {
      instrumented = run_trainer();
      bare = run_bare();
    }
    out.add(bare, instrumented);
  }
  return out;
}

void print_row(amp::PrecisionMode mode, const PairedRounds& r) {
  std::printf("| %s | %.3f | %.4f | %.4f | %s |\n", std::string(amp::to_string(mode)).c_str(),
              1e3 * *measure::median(r.base) / static_cast<double>(r.timed_steps), *measure::median(r.base),
              *measure::median(r.other), benchmarks::paired_cells(r, kGoal, 1e6, "us", 1).c_str());
}

}  // namespace

int main(int argc, char** argv) {
  measure::settle_host_malloc();  // as ampbench itself runs
  CLI::App app("instrumentation_overhead: ampbench's Trainer against a bare training loop, epoch by epoch");
  Arguments args;
  add_options(app, args);
  if (auto exit_code = app::parse_command_line(app, argc, argv)) return *exit_code;
  spdlog::set_level(spdlog::level::warn);  // the Trainer's per-epoch lines would break up the table

  config::ExperimentConfig config;
  torch::Device device = torch::kCPU;
  data::Dataset dataset;
  try {
    config = read_config(args);
    device = config::resolve_device(config);
    dataset = config::load_data(config, device);
    config = config::fitted_to(std::move(config), dataset, device);
  } catch (const util::InputError& e) {
    std::cerr << "config error: " << e.what() << "\n";
    return app::kExitUsage;
  }
  torch::manual_seed(config.seed);
  const auto initial = train::ModelState::capture(*config.model.spec->build());
  print_environment(measure::capture_environment(device, config::to_json(config), config.seed));
  std::printf(
      "| mode | bare step (ms) | bare loop (s) | ampbench Trainer (s) | overhead [95%% CI] | range over %d "
      "rounds | "
      "per step [95%% CI] | goal <= 1%% |\n",
      args.rounds);
  std::printf("|---|---:|---:|---:|---:|---:|---:|---|\n");
  for (auto mode : config.precision.modes) {
    if (amp::check_mode_support(mode, device.type(), std::nullopt).skip_reason) continue;
    amp::MathSettingsScope math(amp::settings_for(mode, device.type(), config.train.cudnn_benchmark));
    print_row(mode, run_rounds(config, dataset, device, mode, args.rounds, initial));
  }
  return 0;
}
