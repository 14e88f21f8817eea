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

#include "amp/autocast_scope.h"
#include "amp/grad_scaler.h"
#include "amp/math_settings.h"
#include "amp/mode_support.h"
#include "cli/parse_command_line.h"
#include "config/experiment_config.h"
#include "data/batch_order.h"
#include "data/load_dataset.h"
#include "measure/device.h"
#include "measure/environment.h"
#include "measure/host_malloc.h"
#include "measure/statistics.h"
#include "models/registry.h"
#include "optim/grad_clipping.h"
#include "train/classification_loss.h"
#include "train/model_state.h"
#include "train/trainer.h"

using namespace ampbench;

namespace {

constexpr double kGoal = 0.01;  // the Trainer may cost at most 1 % over the bare loop

// The training work of one epoch and nothing else: batches, autocast forward + loss, backward, the
// GradScaler, clipping, the optimizer; timed like the Trainer (device synchronised at both ends, the
// warm-up steps outside).
double bare_epoch(const config::ExperimentConfig& config, const data::Dataset& dataset,
                  const torch::Device& device, amp::PrecisionMode mode, models::Network& model) {
  const auto& train = config.train;
  auto optimizer = train::make_optimizer(train.optimizer, model.parameters());
  std::optional<amp::GradScaler> scaler;
  if (amp::needs_grad_scaler(mode)) scaler.emplace(config.precision.grad_scaler, device);
  const int64_t steps = dataset.train_size() / train.batch_size;
  // Batches are cut where the data lives, as the Trainer cuts them: a data set too large for the device
  // stays in host memory and each batch is copied over.
  auto order = data::epoch_order(config.seed, 1, dataset.train_size());
  if (dataset.staged) order = order.to(device);
  auto to_device = [&](const torch::Tensor& batch) {
    return dataset.staged ? batch : batch.to(device, true);
  };
  const auto memory_format =
      train.channels_last ? at::MemoryFormat::ChannelsLast : at::MemoryFormat::Contiguous;
  model.train();
  optimizer->zero_grad();
  auto step = [&](int64_t i) {
    auto index = order.narrow(0, i * train.batch_size, train.batch_size);
    auto inputs = to_device(dataset.train_inputs.index_select(0, index)).contiguous(memory_format);
    auto labels = to_device(dataset.train_labels.index_select(0, index));
    torch::Tensor loss;
    {
      amp::AutocastScope autocast(device.type(), amp::autocast_dtype(mode));
      loss = train::classification_loss(model.forward(inputs), labels);
    }
    // Without accumulation, dividing by 1 would cost a kernel forward and one backward for nothing.
    auto scaled = train.accumulation_steps > 1 ? loss / static_cast<double>(train.accumulation_steps) : loss;
    (scaler ? scaler->scale(scaled) : scaled).backward();
    if ((i + 1) % train.accumulation_steps != 0 && i + 1 != steps) return;
    if (scaler) {
      if (train.clip_grad_norm) {
        scaler->unscale_(*optimizer);
        optim::clip_grad_norm_(optimizer->grads(), *train.clip_grad_norm);
      }
      scaler->step(*optimizer);
      scaler->update();
    } else {
      if (train.clip_grad_norm) optim::clip_grad_norm_(optimizer->grads(), *train.clip_grad_norm);
      optimizer->step();
    }
    optimizer->zero_grad();
  };
  for (int64_t i = 0; i < train.warmup_steps; ++i) step(i);
  measure::synchronize(device);
  auto start = std::chrono::steady_clock::now();
  for (int64_t i = train.warmup_steps; i < steps; ++i) step(i);
  measure::synchronize(device);
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

int main(int argc, char** argv) {
  measure::settle_host_malloc();  // as ampbench itself runs
  CLI::App app("instrumentation_overhead: ampbench's Trainer against a bare training loop, epoch by epoch");
  std::string config_path;
  std::vector<std::string> modes;
  int rounds = 10;
  std::optional<int64_t> train_samples;
  std::optional<std::string> device_spec;
  app.add_option("-c,--config", config_path, "experiment config (JSON)")
      ->required()
      ->check(CLI::ExistingFile);
  app.add_option("--modes", modes, "precision modes (default: the config's)")->delimiter(',');
  app.add_option("--device", device_spec, "auto, cpu, cuda or cuda:N (default: the config's)");
  app.add_option("--rounds", rounds, "alternating rounds per mode")->check(CLI::Range(2, 1000));
  app.add_option("--train-samples", train_samples,
                 "training samples per epoch (default: the config's): longer epochs, less noise per round")
      ->check(CLI::PositiveNumber);
  if (auto exit_code = cli::parse_command_line(app, argc, argv)) return *exit_code;
  spdlog::set_level(spdlog::level::warn);  // the Trainer's per-epoch lines would break up the table

  config::ExperimentConfig config;
  nlohmann::json doc;
  torch::Device device = torch::kCPU;
  try {
    doc = config::read_config_file(config_path);
    if (!modes.empty()) doc["precision"]["modes"] = modes;
    if (device_spec) doc["device"] = *device_spec;
    doc["train"]["epochs"] = 1;
    if (train_samples) {
      for (auto& [source, options] : doc["data"].items()) options["train_samples"] = *train_samples;
    }
    config = config::parse_experiment_config(doc);
    device = measure::resolve_device(config.device);
  } catch (const config::ConfigError& e) {
    std::cerr << "config error: " << e.what() << "\n";
    return cli::kExitUsage;
  }
  auto dataset = data::load_dataset(config.data, device);
  const auto& entry = *models::find_model(config.model.type);
  models::InputSpec input{dataset.sample_shape, dataset.num_classes, config.data.is_language_model()};
  torch::manual_seed(config.seed);
  const auto initial = train::ModelState::capture(*entry.build(config.model.options, input));
  train::Trainer trainer(config, dataset, device);

  // Where the figures come from, as every ampbench report says it.
  const auto env = measure::capture_environment(device, doc, config.seed);
  std::printf("- ampbench %s (%s build, %s); LibTorch %s\n", env.git_commit.c_str(), env.build_type.c_str(),
              env.compiler.c_str(), env.libtorch_version.c_str());
  // On a GPU the host CPU still runs the loop around the kernels, so it is named as well.
  const std::string host_cpu = env.device_name == env.cpu_model ? "" : ", host " + env.cpu_model;
  std::printf("- Machine: %s (%s)%s, %d cores; torch threads: %d; host malloc: %s\n\n", env.device.c_str(),
              env.device_name.c_str(), host_cpu.c_str(), env.cpu_cores, env.torch_threads,
              env.host_malloc.c_str());
  std::printf(
      "| mode | bare step (ms) | bare loop (s) | ampbench Trainer (s) | overhead [95%% CI] | range over %d "
      "rounds | "
      "per step [95%% CI] | goal <= 1%% |\n",
      rounds);
  std::printf("|---|---:|---:|---:|---:|---:|---:|---|\n");
  for (auto mode : config.precision.modes) {
    if (amp::check_mode_support(mode, device.type(), std::nullopt).skip_reason) continue;
    amp::MathSettingsScope math(amp::settings_for(mode, device.type(), config.train.cudnn_benchmark));
    std::vector<double> bare, instrumented, ratios, extra_per_step;
    int64_t timed_steps = 0;
    auto fresh = [&] {
      auto model = entry.build(config.model.options, input);
      initial.restore_into(*model);
      model->to(device);
      return model;
    };
    auto run_bare = [&] {
      auto model = fresh();
      bare.push_back(bare_epoch(config, dataset, device, mode, *model));
    };
    auto run_trainer = [&] {
      auto model = fresh();
      report::TrialRecord record;
      trainer.run(mode, *model, record);
      instrumented.push_back(record.epochs.at(0).seconds);
      timed_steps = record.epochs.at(0).timed_steps;
    };
    for (int round = 0; round < rounds; ++round) {
      if (round % 2 == 0) {
        run_bare();
        run_trainer();
      } else {
        run_trainer();
        run_bare();
      }
      // Each round is a pair run side by side: its ratio cancels the drift that both of them saw.
      ratios.push_back(instrumented.back() / bare.back());
      extra_per_step.push_back((instrumented.back() - bare.back()) / static_cast<double>(timed_steps));
    }
    const auto overhead = *measure::bootstrap_median(ratios);
    const auto per_step = *measure::bootstrap_median(extra_per_step);
    const char* verdict = overhead.high - 1.0 <= kGoal ? "met"
                          : overhead.low - 1.0 > kGoal ? "not met"
                                                       : "undecided: the interval spans 1%";
    std::printf(
        "| %s | %.3f | %.4f | %.4f | %+.2f%% [%+.2f%%, %+.2f%%] | %+.2f%% to %+.2f%% | %+.1f us [%+.1f, "
        "%+.1f] | %s "
        "|\n",
        std::string(amp::to_string(mode)).c_str(),
        1e3 * *measure::median(bare) / static_cast<double>(timed_steps), *measure::median(bare),
        *measure::median(instrumented), 100.0 * (*measure::median(ratios) - 1.0),
        100.0 * (overhead.low - 1.0), 100.0 * (overhead.high - 1.0), 100.0 * (*measure::min_of(ratios) - 1.0),
        100.0 * (*measure::max_of(ratios) - 1.0), 1e6 * *measure::median(extra_per_step), 1e6 * per_step.low,
        1e6 * per_step.high, verdict);
  }
  return 0;
}
