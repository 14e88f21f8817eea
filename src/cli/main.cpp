// The ampbench command: the only code that prints for the user and picks exit codes.
//   0 success, 1 runtime failure, 2 usage or config error (nothing written).

#include <cstdio>
#include <iostream>

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>
#include <CLI/CLI.hpp>

#include "cli/cli_options.h"
#include "config/experiment_config.h"
#include "measure/device.h"
#include "models/registry.h"
#include "report/console_report.h"
#include "report/csv_report.h"
#include "report/json_report.h"
#include "report/run_folder.h"
#include "train/experiment.h"

namespace {

constexpr int kExitRuntimeFailure = 1;
constexpr int kExitUsage = 2;

// Sets doc/<keys...> = value, creating objects on the way. When something other than an object is in
// the way, it leaves the document alone: the config parser then reports that path.
void set_override(nlohmann::json& doc, const std::vector<std::string>& keys, const nlohmann::json& value) {
  nlohmann::json* node = &doc;
  for (size_t i = 0; i + 1 < keys.size(); ++i) {
    if (!node->is_object()) return;
    node = &(*node)[keys[i]];
    if (node->is_null()) *node = nlohmann::json::object();
  }
  if (node->is_object()) (*node)[keys.back()] = value;
}

void apply_overrides(nlohmann::json& doc, const ampbench::cli::CliOptions& options) {
  if (!options.modes.empty()) set_override(doc, {"precision", "modes"}, options.modes);
  if (options.epochs) set_override(doc, {"train", "epochs"}, *options.epochs);
  if (options.device) set_override(doc, {"device"}, *options.device);
  if (options.out_dir) set_override(doc, {"output", "dir"}, *options.out_dir);
  if (options.seed) set_override(doc, {"seed"}, *options.seed);
}

void configure_logging(const ampbench::cli::CliOptions& options) {
  auto logger = spdlog::stderr_color_mt("ampbench");
  logger->set_pattern("%^[%H:%M:%S %l]%$ %v");
  logger->set_level(options.quiet     ? spdlog::level::warn
                    : options.verbose ? spdlog::level::debug
                                      : spdlog::level::info);
  spdlog::set_default_logger(logger);
}

void list_models() {
  for (const auto& entry : ampbench::models::model_registry()) {
    std::printf("%-10s %s\n", entry.name.c_str(), entry.description.c_str());
  }
}

void write_reports(const std::filesystem::path& folder, const ampbench::report::RunReport& report) {
  ampbench::report::write_file_atomically(folder / "report.json",
                                          ampbench::report::to_json(report).dump(2) + "\n");
  ampbench::report::write_file_atomically(folder / "report.csv", ampbench::report::to_csv(report));
}

int run(const ampbench::cli::CliOptions& options) {
  using namespace ampbench;
  if (options.list_models) {
    list_models();
    return 0;
  }
  if (options.config_path.empty()) {
    std::cerr << "usage error: --config FILE is required (see --help)\n";
    return kExitUsage;
  }

  // Everything the user gave is checked before anything is written.
  config::ExperimentConfig config;
  torch::Device device = torch::kCPU;
  try {
    auto doc = config::read_config_file(options.config_path);
    apply_overrides(doc, options);
    config = config::parse_experiment_config(doc);
    if (options.dry_run) {
      std::cout << config::to_json(config).dump(2) << "\n";
      return 0;
    }
    device = measure::resolve_device(config.device);
  } catch (const config::ConfigError& e) {
    std::cerr << "config error: " << e.what() << "\n";
    return kExitUsage;
  }

  std::filesystem::path folder;
  try {
    folder = report::create_run_folder(config.output_dir, config.name);
  } catch (const std::exception& e) {
    std::cerr << "output error: " << e.what() << "\n";
    return kExitUsage;
  }
  spdlog::info("writing to {}", folder.string());

  train::Experiment experiment(config, device);
  auto result = experiment.run([&](const report::RunReport& so_far) { write_reports(folder, so_far); });
  write_reports(folder, result);
  std::cout << report::to_console(result) << "reports: " << (folder / "report.json").string() << ", "
            << (folder / "report.csv").string() << "\n";
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"", "ampbench"};
  ampbench::cli::CliOptions options;
  ampbench::cli::add_options(app, options);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "usage error: " << e.what() << " (see --help)\n";
    return kExitUsage;
  }
  configure_logging(options);
  try {
    return run(options);
  } catch (const c10::Error& e) {
    std::cerr << "error: " << e.what_without_backtrace() << "\n";
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
  }
  return kExitRuntimeFailure;
}
