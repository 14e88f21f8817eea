// What running a torch.export program node by node costs against the same model built natively: per
// mode, one epoch of the bare training loop with each, from the same weights (the archive's, copied into
// the native model by name) on the same batches, alternated round by round with the order flipped every
// round, so that drift and warm caches favour neither.
//
// Usage: graph_runner_overhead --native CONFIG --exported CONFIG [--modes fp32,bf16] [--rounds N]
//                              [--train-samples N]
// The two configs may differ only in their name and model. The native model must hold the exported one's
// parameters and buffers under the same names (ampbench's resnet18 and torchvision's, exported by
// scripts/export_model.py, do). Prints a Markdown table: median epoch seconds of each; the graph runner's
// cost as the median of the rounds' paired ratios with a 95 % bootstrap interval and their range; the same
// as time per step; and a verdict against the 3 % goal.
#include <iostream>

#include <spdlog/spdlog.h>
#include <CLI/CLI.hpp>

#include "amp/math_settings.h"
#include "amp/mode_support.h"
#include "app/command_line.h"
#include "app/exit_codes.h"
#include "config/experiment_config.h"
#include "config/resolve.h"
#include "measure/host_malloc.h"
#include "measure/statistics.h"
#include "train/model_state.h"

#include "bare_loop.h"

using namespace ampbench;

namespace {

constexpr double kGoal = 0.03;  // the graph runner may cost at most 3 % per step over the native model

struct Arguments {
  std::string native_path, exported_path;
  std::vector<std::string> modes;
  int rounds = 10;
  std::optional<int64_t> train_samples;
};

void add_options(CLI::App& app, Arguments& args) {
  app.add_option("--native", args.native_path, "config of the native model")
      ->required()
      ->check(CLI::ExistingFile);
  app.add_option("--exported", args.exported_path, "config of the exported one")
      ->required()
      ->check(CLI::ExistingFile);
  app.add_option("--modes", args.modes, "precision modes (default: the configs')")->delimiter(',');
  app.add_option("--rounds", args.rounds, "alternating rounds per mode")->check(CLI::Range(2, 1000));
  app.add_option("--train-samples", args.train_samples, "training samples per epoch (default: the configs')")
      ->check(CLI::PositiveNumber);
}

nlohmann::json read_document(const std::string& path, const Arguments& args) {
  auto doc = config::read_config_file(path);
  if (!args.modes.empty()) doc["precision"]["modes"] = args.modes;
  doc["train"]["epochs"] = 1;
  if (args.train_samples) {
    for (auto& [source, options] : doc["data"].items()) options["train_samples"] = *args.train_samples;
  }
  return doc;
}

// The two configs, refused unless they are one experiment apart from the model.
std::pair<config::ExperimentConfig, config::ExperimentConfig> read_configs(const Arguments& args) {
  auto native = config::parse_experiment_config(read_document(args.native_path, args));
  auto exported = config::parse_experiment_config(read_document(args.exported_path, args));
  auto without_model = [](const config::ExperimentConfig& c) {
    auto doc = config::to_json(c);
    doc.erase("model");
    doc.erase("name");
    return doc;
  };
  if (without_model(native) != without_model(exported))
    throw util::InputError(args.exported_path,
                           "differs from " + args.native_path + " in more than its name and model");
  return {std::move(native), std::move(exported)};
}

// The native model's state from the exported one's, by name.
train::ModelState native_state(const models::Network& exported, models::Network& native) {
  torch::NoGradGuard no_grad;
  auto parameters = exported.named_parameters();
  auto buffers = exported.named_buffers();
  for (auto* pairs : {&parameters, &buffers}) {
    const auto& targets = pairs == &parameters ? native.named_parameters() : native.named_buffers();
    for (const auto& item : targets) {
      const auto* source = pairs->find(item.key());
      if (!source)
        throw util::InputError("the exported model has no \"" + item.key() + "\" for the native one");
      item.value().copy_(*source);
    }
  }
  return train::ModelState::capture(native);
}

benchmarks::PairedRounds run_rounds(const config::ExperimentConfig& native,
                                    const config::ExperimentConfig& exported, const data::Dataset& dataset,
                                    const torch::Device& device, amp::PrecisionMode mode, int rounds) {
  torch::manual_seed(native.seed);
  auto exported_model = exported.model.spec->build();
  const auto exported_state = train::ModelState::capture(*exported_model);
  const auto initial = native_state(*exported_model, *native.model.spec->build());
  const auto options = train::TrainerOptions::from(native);
  benchmarks::PairedRounds out;  // native the base
  auto epoch = [&](const config::ExperimentConfig& config, const train::ModelState& state) {
    auto model = config.model.spec->build();
    state.restore_into(*model);
    model->to(device);
    const auto timed = benchmarks::bare_epoch(options, dataset, device, mode, *model);
    out.timed_steps = timed.timed_steps;
    return timed.seconds;
  };
  for (int round = 0; round < rounds; ++round) {
    double base = 0, other = 0;
    if (round % 2 == 0) base = epoch(native, initial);
    other = epoch(exported, exported_state);
    if (round % 2 == 1) base = epoch(native, initial);
    out.add(base, other);
  }
  return out;
}

void print_row(amp::PrecisionMode mode, const benchmarks::PairedRounds& r) {
  std::printf("| %s | %.2f | %.3f | %.3f | %s |\n", std::string(amp::to_string(mode)).c_str(),
              1e3 * *measure::median(r.base) / double(r.timed_steps), *measure::median(r.base),
              *measure::median(r.other), benchmarks::paired_cells(r, kGoal, 1e3, "ms", 3).c_str());
}

}  // namespace

int main(int argc, char** argv) {
  measure::settle_host_malloc();  // as ampbench itself runs
  CLI::App app("graph_runner_overhead: an exported model's graph run node by node against the native model");
  Arguments args;
  add_options(app, args);
  if (auto exit_code = app::parse_command_line(app, argc, argv)) return *exit_code;
  spdlog::set_level(spdlog::level::warn);
  config::ExperimentConfig native, exported;
  torch::Device device = torch::kCPU;
  data::Dataset dataset;
  try {
    std::tie(native, exported) = read_configs(args);
    device = config::resolve_device(native);
    dataset = config::load_data(native, device);
    native = config::fitted_to(std::move(native), dataset, device);
    exported = config::fitted_to(std::move(exported), dataset, device);
  } catch (const util::InputError& e) {
    std::cerr << "config error: " << e.what() << "\n";
    return app::kExitUsage;
  }
  benchmarks::print_environment(measure::capture_environment(device, config::to_json(native), native.seed));
  std::printf(
      "| mode | native step (ms) | native epoch (s) | exported epoch (s) | cost [95%% CI] | range over %d "
      "rounds | per step [95%% CI] | goal <= 3%% |\n",
      args.rounds);
  std::printf("|---|---:|---:|---:|---:|---:|---:|---|\n");
  try {
    for (auto mode : native.precision.modes) {
      if (amp::check_mode_support(mode, device.type(), std::nullopt).skip_reason) continue;
      amp::MathSettingsScope math(amp::settings_for(mode, device.type(), native.train.cudnn_benchmark));
      print_row(mode, run_rounds(native, exported, dataset, device, mode, args.rounds));
    }
  } catch (const util::InputError& e) {
    std::cerr << "error: " << e.what() << "\n";
    return app::kExitUsage;
  }
  return 0;
}
