// What running a torch.export program node by node costs against the same model built natively: per
// mode, the exported model and the native one (the archive's weights copied into it by name) train side by
// side on the same batches, alternating in blocks of a few steps, each round's four blocks in the order
// native, exported, exported, native, so that the machine's drift and the blocks' order favour neither.
//
// Usage: graph_runner_overhead --native CONFIG --exported CONFIG [--modes fp32,bf16] [--rounds N]
//                              [--block-steps N] [--train-samples N]
// The two configs may differ only in their name and model. The two models must hold the same parameters
// and buffers by name and shape (ampbench's resnet18 and torchvision's, exported by scripts/export_model.py,
// do); anything else is refused in one line before the table. Prints a Markdown table: the median step time
// of each; the graph runner's cost as the median of the rounds' paired ratios with a 95 % bootstrap interval
// and their range; the same as time per step; and a verdict against the 3 % goal.
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

#include "bare_loop.h"

using namespace ampbench;

namespace {

constexpr double kGoal = 0.03;  // the graph runner may cost at most 3 % per step over the native model

struct Arguments {
  std::string native_path, exported_path;
  std::vector<std::string> modes;
  int rounds = 200;
  int64_t block_steps = 4;
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
  app.add_option("--rounds", args.rounds, "alternating rounds per mode (default 200)")
      ->check(CLI::Range(2, 100000));
  app.add_option("--block-steps", args.block_steps,
                 "steps per block, two blocks of each model a round (default 4)")
      ->check(CLI::Range(1, 100000));
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

using TensorDict = torch::OrderedDict<std::string, torch::Tensor>;

// `to`'s tensors set from `from`'s of the same names; `kind` ("parameter", "buffer") names them in a refusal.
void copy_named(const TensorDict& from, const TensorDict& to, const std::string& kind) {
  for (const auto& item : from) {
    if (!to.contains(item.key()))
      throw util::InputError("the native model has no " + kind + " \"" + item.key() +
                             "\" of the exported one's");
  }
  for (const auto& item : to) {
    const auto* source = from.find(item.key());
    if (!source)
      throw util::InputError("the exported model has no " + kind + " \"" + item.key() +
                             "\" for the native one");
    if (source->sizes() != item.value().sizes())
      throw util::InputError("the " + kind + " \"" + item.key() + "\" is " + c10::str(source->sizes()) +
                             " in the exported model and " + c10::str(item.value().sizes()) +
                             " in the native one");
    item.value().copy_(*source);
  }
}

// The exported model's parameters and buffers copied into the native one, by name: InputError unless the
// two hold the same names at the same shapes.
void copy_state_by_name(const models::Network& exported, models::Network& native) {
  torch::NoGradGuard no_grad;
  copy_named(exported.named_parameters(), native.named_parameters(), "parameter");
  copy_named(exported.named_buffers(), native.named_buffers(), "buffer");
}

benchmarks::PairedRounds run_rounds(const config::ExperimentConfig& native,
                                    const config::ExperimentConfig& exported, const data::Dataset& dataset,
                                    const torch::Device& device, amp::PrecisionMode mode,
                                    const Arguments& args) {
  torch::manual_seed(native.seed);
  auto exported_model = exported.model.spec->build();
  auto native_model = native.model.spec->build();
  copy_state_by_name(*exported_model, *native_model);
  exported_model->to(device);
  native_model->to(device);
  const auto options = train::TrainerOptions::from(native);
  benchmarks::SteppedLoop native_loop(options, dataset, device, mode, *native_model);
  benchmarks::SteppedLoop exported_loop(options, dataset, device, mode, *exported_model);
  benchmarks::PairedRounds out;  // native the base
  out.timed_steps = 2 * args.block_steps;
  for (int round = 0; round < args.rounds; ++round) {
    // native, exported, exported, native: the slot order and a drift within the round cancel in its ratio
    double base = native_loop.time_steps(args.block_steps);
    double other = exported_loop.time_steps(args.block_steps);
    other += exported_loop.time_steps(args.block_steps);
    base += native_loop.time_steps(args.block_steps);
    out.add(base, other);
  }
  return out;
}

void print_row(amp::PrecisionMode mode, const benchmarks::PairedRounds& r) {
  const auto per_step = [&](const std::vector<double>& seconds) {
    return 1e3 * *measure::median(seconds) / double(r.timed_steps);
  };
  std::printf("| %s | %.2f | %.2f | %s |\n", std::string(amp::to_string(mode)).c_str(), per_step(r.base),
              per_step(r.other), benchmarks::paired_cells(r, kGoal, 1e3, "ms", 3).c_str());
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
    // refused here, before the table
    copy_state_by_name(*exported.model.spec->build(), *native.model.spec->build());
  } catch (const util::InputError& e) {
    std::cerr << "config error: " << e.what() << "\n";
    return app::kExitUsage;
  }
  benchmarks::print_environment(measure::capture_environment(device, config::to_json(native), native.seed));
  std::printf(
      "| mode | native step (ms) | exported step (ms) | cost [95%% CI] | range over %d rounds "
      "(blocks of %lld steps) | per step [95%% CI] | goal <= 3%% |\n",
      args.rounds, static_cast<long long>(args.block_steps));
  std::printf("|---|---:|---:|---:|---:|---:|---|\n");
  try {
    for (auto mode : native.precision.modes) {
      if (amp::check_mode_support(mode, device.type(), std::nullopt).skip_reason) continue;
      amp::MathSettingsScope math(amp::settings_for(mode, device.type(), native.train.cudnn_benchmark));
      print_row(mode, run_rounds(native, exported, dataset, device, mode, args));
    }
  } catch (const util::InputError& e) {
    std::cerr << "error: " << e.what() << "\n";
    return app::kExitUsage;
  }
  return 0;
}
