#include "cli/cli_options.h"

#include <sstream>

#include "amp/precision_mode.h"
#include "measure/build_info.h"
#include "measure/device.h"
#include "measure/environment.h"
#include "train/fault_injection.h"

namespace ampbench::cli {

std::string version_text() {
  std::string text = std::string("ampbench ") + AMPBENCH_VERSION + " (commit " + git_commit() + ", " +
                     AMPBENCH_BUILD_TYPE + " build)\nLibTorch " + measure::libtorch_version();
  auto cuda = measure::cuda_runtime_version();
  text += cuda ? ", CUDA " + *cuda : ", no CUDA";
  if (auto cudnn = measure::cudnn_version()) text += ", cuDNN " + *cudnn;
  return text;
}

namespace {

// Options for tests of ampbench itself, listed apart from the user-facing ones.
void add_debug_options(CLI::App& app, CliOptions& options) {
  app.add_option("--inject-fault", options.inject_fault,
                 "testing: plant a fault, KIND:MODE:STEP with KIND nan|oom|sigint|sigterm (e.g. nan:bf16:5)")
      ->group("Debug")
      ->check(CLI::Validator(
          [](std::string& spec) {
            return train::parse_fault_injection(spec) ? std::string()
                                                      : "expected KIND:MODE:STEP, e.g. nan:bf16:5";
          },
          "FAULT", "fault"));
}

}  // namespace

nlohmann::json peak_tflops_json(const std::string& text) {
  auto number = [](const std::string& s) -> std::optional<double> {
    try {
      size_t used = 0;
      double value = std::stod(s, &used);
      if (used == s.size()) return value;
    } catch (const std::exception&) {
    }
    return std::nullopt;
  };
  if (auto value = number(text)) return *value;
  nlohmann::json per_mode = nlohmann::json::object();
  std::stringstream items(text);
  for (std::string item; std::getline(items, item, ',');) {
    auto equals = item.find('=');
    auto value = equals == std::string::npos ? std::nullopt : number(item.substr(equals + 1));
    if (!value) return text;
    per_mode[item.substr(0, equals)] = *value;
  }
  return per_mode;
}

void add_options(CLI::App& app, CliOptions& options) {
  app.description(
      "ampbench: trains one model in each precision mode (fp32, tf32, fp16 + GradScaler, bf16) from the\n"
      "same initial weights on the same data, and reports epoch time, peak memory and validation loss\n"
      "side by side.");
  app.set_version_flag("--version", version_text());
  app.add_option("-c,--config", options.config_path, "experiment config (JSON)")->check(CLI::ExistingPath);
  app.add_option("--modes", options.modes, "precision modes to run, in order (default: the config's)")
      ->delimiter(',')
      ->check(CLI::Validator(
          [](std::string& mode) {
            return amp::parse_precision_mode(mode)
                       ? std::string()
                       : "unknown mode \"" + mode + "\"; expected one of " + amp::precision_mode_names();
          },
          "MODE", "precision mode"));
  app.add_option("--epochs", options.epochs, "epochs per mode (default: the config's)")
      ->check(CLI::Range(int64_t{1}, int64_t{1'000'000}));
  app.add_option("--repeats", options.repeats,
                 "trials per mode, interleaved across modes (default: the config's, else 1)")
      ->check(CLI::Range(int64_t{1}, int64_t{1000}));
  app.add_option("--device", options.device, "auto|cpu|cuda|cuda:N (default: the config's, else auto)")
      ->check(CLI::Validator(
          [](std::string& spec) {
            return measure::is_valid_device_spec(spec) ? std::string() : "expected auto, cpu, cuda or cuda:N";
          },
          "DEVICE", "device"));
  app.add_option("--out", options.out_dir, "folder for run folders (default: the config's, else results)");
  app.add_option("--seed", options.seed,
                 "seed for initial weights and data order (default: the config's, else 0)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--peak-tflops", options.peak_tflops,
                 "dense peak TFLOP/s for MFU: X for every mode, or MODE=X,... (default: the config's, else "
                 "the built-in table of GPUs)");
  app.add_flag("-q,--quiet", options.quiet, "log only warnings and errors");
  app.add_flag("-v,--verbose", options.verbose, "log debug detail");
  app.add_flag("--dry-run", options.dry_run, "print the resolved config and exit");
  app.add_flag("--list-models", options.list_models, "list the reference models and exit");
  add_debug_options(app, options);
  app.add_option("--export-json", options.export_json, "also write the JSON report here (- for stdout)");
  app.add_option("--export-csv", options.export_csv, "also write the CSV report here (- for stdout)");
  app.add_option("--export-markdown", options.export_markdown,
                 "also write the Markdown summary here, e.g. $GITHUB_STEP_SUMMARY (- for stdout)");
}

CLI::App* add_compare_command(CLI::App& app, CompareOptions& options) {
  auto* compare = app.add_subcommand(
      "compare", "compare two report.json files mode by mode; exit 3 when NEW regressed past a limit");
  compare->add_option("BASE", options.base_path, "baseline report.json")
      ->required()
      ->check(CLI::ExistingFile);
  compare->add_option("NEW", options.new_path, "new report.json")->required()->check(CLI::ExistingFile);
  compare
      ->add_option("--max-slowdown", options.max_slowdown,
                   "largest allowed drop in samples/s, as a fraction (0.05 = 5%)")
      ->check(CLI::Range(0.0, 1.0));
  compare
      ->add_option("--max-memory-increase", options.max_memory_increase,
                   "largest allowed rise in peak memory, as a fraction")
      ->check(CLI::NonNegativeNumber);
  compare
      ->add_option("--max-val-loss-increase", options.max_val_loss_increase,
                   "largest allowed rise in final validation loss (absolute)")
      ->check(CLI::NonNegativeNumber);
  compare->add_option("--markdown", options.markdown_path,
                      "also write the comparison as Markdown here (- for stdout)");
  compare->add_flag("--force", options.force, "compare reports of different models or configs anyway");
  return compare;
}

}  // namespace ampbench::cli
