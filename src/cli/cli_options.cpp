#include "cli/cli_options.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <sstream>

#include "amp/precision_mode.h"
#include "config/experiment_config.h"
#include "measure/build_info.h"
#include "measure/device.h"
#include "measure/environment.h"
#include "train/fault_injection.h"
#include "util/input_error.h"
#include "util/printable.h"

namespace ampbench::cli {

std::string version_text() {
  std::string text = std::string("ampbench ") + AMPBENCH_VERSION + " (commit " + git_commit() + ", " +
                     AMPBENCH_BUILD_TYPE + " build)\nLibTorch " + measure::libtorch_version();
  auto cuda = measure::cuda_runtime_version();
  text += cuda ? ", CUDA " + *cuda : ", no CUDA";
  if (auto cudnn = measure::cudnn_version()) text += ", cuDNN " + *cudnn;
  text += "; chosen: " + measure::libtorch_choice();
  return text;
}

namespace {

// Options for tests of ampbench itself, listed apart from the user-facing ones.
void add_debug_options(CLI::App& app, CliOptions& options) {
  app.add_option(
         "--inject-fault", options.inject_fault,
         "testing: plant a fault, KIND:MODE:STEP[:TRIAL] with KIND "
         "nan|flaky|overflow|nangrad|oom|error|exception|sigint|sigterm|sighup|sigquit|sigstop|slow|fp8scale "
         "(e.g. nan:bf16:5)")
      ->group("Debug")
      ->check(CLI::Validator(
          [](std::string& spec) {
            return train::parse_fault_injection(spec) ? std::string()
                                                      : "expected KIND:MODE:STEP[:TRIAL], e.g. nan:bf16:5";
          },
          "FAULT", "fault"));
}

// An integer in [min, max], said so when it is not (CLI11's range check says "not in range" for text
// that is no number at all, and its numbers pass through double, which rounds large ones).
CLI::Validator integer_in(int64_t min, int64_t max) {
  const std::string range = "[" + std::to_string(min) + ", " + std::to_string(max) + "]";
  return CLI::Validator(
      [min, max, range](std::string& text) {
        int64_t value = 0;
        const char* end = text.data() + text.size();
        const auto [stop, error] = std::from_chars(text.data(), end, value);
        const bool ok = !text.empty() && error == std::errc() && stop == end && value >= min && value <= max;
        return ok ? std::string() : "expected an integer in " + range + ", got \"" + text + "\"";
      },
      "INT in " + range, "integer range");
}

}  // namespace

const CLI::Validator kOutputFile(
    [](std::string& path) {
      return path.empty() ? std::string("expected a file path, or - for stdout; got \"\"") : std::string();
    },
    "FILE|-", "output file");

const CLI::Validator kOutputFolder(
    [](std::string& path) {
      if (path.empty()) return std::string("expected a folder; got \"\"");
      if (path == "-") return std::string("expected a folder (it gets two files), not - (stdout)");
      return std::string();
    },
    "DIR", "output folder");

namespace {

// Report files beside the run folder.
void add_export_options(CLI::App& app, CliOptions& options) {
  app.add_option("--export-json", options.export_json, "also write the JSON report here (- for stdout)")
      ->check(kOutputFile);
  app.add_option("--export-csv", options.export_csv, "also write the CSV report here (- for stdout)")
      ->check(kOutputFile);
  app.add_option("--export-markdown", options.export_markdown,
                 "also write the Markdown summary here, e.g. $GITHUB_STEP_SUMMARY (- for stdout)")
      ->check(kOutputFile);
  app.add_option("--export-bmf", options.export_bmf,
                 "also write Bencher Metric Format here, a benchmark per mode (per point in a sweep) (- for "
                 "stdout)")
      ->check(kOutputFile);
  app.add_option("--export-benchmark-action", options.export_benchmark_action,
                 "also write github-action-benchmark's customBiggerIsBetter.json and "
                 "customSmallerIsBetter.json into this folder")
      ->check(kOutputFolder);
}

}  // namespace

std::optional<nlohmann::json> peak_tflops_json(const std::string& text) {
  auto number = [](const std::string& s) -> std::optional<double> {
    try {
      size_t used = 0;
      double value = std::stod(s, &used);
      // NaN or inf would reach the config as JSON null: no peak, and a message about null.
      if (used == s.size() && std::isfinite(value)) return value;
    } catch (const std::exception&) {
    }
    return std::nullopt;
  };
  if (auto value = number(text)) return *value;
  if (text.empty() || text.back() == ',') return std::nullopt;
  nlohmann::json per_mode = nlohmann::json::object();
  std::stringstream items(text);
  for (std::string item; std::getline(items, item, ',');) {
    auto equals = item.find('=');
    auto value = equals == std::string::npos ? std::nullopt : number(item.substr(equals + 1));
    const auto mode = item.substr(0, equals);
    if (!value || per_mode.contains(mode)) return std::nullopt;
    per_mode[mode] = *value;
  }
  return per_mode;
}

namespace {

// How much training a run does, and from which seed with how many threads.
void add_training_options(CLI::App& app, CliOptions& options) {
  app.add_option("--epochs", options.epochs, "epochs per mode (default: the config's)")
      ->check(integer_in(1, 1'000'000));
  app.add_option("--repeats", options.repeats,
                 "trials per mode, interleaved across modes (default: the config's, else 1)")
      ->check(integer_in(1, 1000));
  app.add_option("--fidelity-seeds", options.fidelity_seeds,
                 "seeds each mode is trained from for the fidelity verdict (default: the config's "
                 "precision.fidelity_seeds, else 1)")
      ->check(integer_in(1, 1000));
  app.add_option("--seed", options.seed,
                 "seed for initial weights and data order (default: the config's, else 0)")
      ->check(integer_in(0, std::numeric_limits<int64_t>::max()));
  app.add_option(
         "--threads", options.threads,
         "LibTorch's intra-op threads for the run (default: the config's train.threads, else LibTorch's "
         "own choice)")
      ->check(integer_in(1, 4096));
  app.add_option("--profile", options.profile_steps,
                 "after the timed trials, train each mode STEPS more steps (default 10, after the config's "
                 "profile.warmup_steps, else 3) under the profiler: where the time went, which ops ran in "
                 "16-bit, a trace per mode")
      ->expected(0, 1)
      ->default_str(std::to_string(config::ProfileConfig::kDefaultSteps))
      ->type_name("[STEPS]")
      ->check(integer_in(1, 100'000));
  app.add_option("--numerics", options.numerics_steps,
                 "after the timed trials, replay each 16-bit mode's trial and measure STEPS optimizer steps "
                 "spread over it (default 4): per layer how close activations, gradients and updates ran to "
                 "the format's limits")
      ->expected(0, 1)
      ->default_str(std::to_string(config::NumericsConfig::kDefaultSteps))
      ->type_name("[STEPS]")
      ->check(integer_in(1, 10'000));
}

// --max-batch and its budget.
void add_headroom_options(CLI::App& app, CliOptions& options) {
  app.add_flag("--max-batch", options.max_batch,
               "find each mode's largest batch within the memory budget (doubling, then bisection), then "
               "run each mode alone at its own; writes max_batch.json, .csv and .md");
  app.add_option("--memory-budget", options.memory_budget,
                 "with --max-batch: the bytes every tensor of the run may hold, e.g. 8GiB or 512MiB (needed "
                 "on the CPU, where the tracking allocator enforces it; default on a GPU: its free memory)")
      ->check(CLI::Validator(
          [](std::string& text) {
            return memory_size_of(text) ? std::string() : "expected a size such as 8GiB, 512MiB or 2GB";
          },
          "SIZE", "memory size"));
}

}  // namespace

void add_options(CLI::App& app, CliOptions& options) {
  app.description(
      "ampbench: trains one model in each precision mode (by default " +
      amp::precision_mode_names(amp::default_precision_modes()) +
      ";\n--list-modes lists them all) from the same initial weights on the same data, and reports "
      "epoch time,\npeak memory and validation loss side by side.");
  app.set_version_flag("--version", version_text());
  app.add_option("-c,--config", options.config_path, "experiment config (JSON)")->check(CLI::ExistingPath);
  app.add_option(
         "--modes", options.modes,
         "precision modes to run, in order, of " + amp::precision_mode_names() + " (default: the config's)")
      ->type_name("MODE,...")
      ->check(CLI::Validator(
          [](std::string& list) {
            for (const auto& mode : mode_names_in(list)) {
              if (mode.empty())
                return "an empty mode in \"" + util::printable(list, 80) +
                       "\": expected a comma-separated list of modes, such as fp32,bf16";
              try {
                amp::precision_mode_named(mode);
              } catch (const util::InputError& e) {
                return e.problem();
              }
            }
            return std::string();
          },
          "MODE,...", "precision modes"));
  add_training_options(app, options);
  app.add_option("--device", options.device, "auto|cpu|cuda|cuda:N (default: the config's, else auto)")
      ->check(CLI::Validator(
          [](std::string& spec) {
            return measure::is_valid_device_spec(spec) ? std::string() : "expected auto, cpu, cuda or cuda:N";
          },
          "DEVICE", "device"));
  app.add_option("--out", options.out_dir, "folder for run folders (default: the config's, else results)");
  app.add_option("--peak-tflops", options.peak_tflops,
                 "dense peak TFLOP/s for MFU: X for every mode, or MODE=X,... (default: the config's, else "
                 "the built-in table of GPUs)")
      ->check(CLI::Validator(
          [](std::string& text) {
            return peak_tflops_json(text)
                       ? std::string()
                       : "expected X or MODE=X,MODE=X with each mode once, e.g. bf16=989,fp32=66.9";
          },
          "X|MODE=X,...", "peak TFLOP/s"));
  auto* quiet = app.add_flag("-q,--quiet", options.quiet, "log only warnings and errors");
  app.add_flag("-v,--verbose", options.verbose,
               "on a terminal, keep the per-epoch log lines beside the live progress line")
      ->excludes(quiet);
  app.add_flag("--dry-run", options.dry_run,
               "make every check a run makes before training (device, data, memory, exports, output "
               "folder, --inject-fault), print the resolved config and exit; writes nothing");
  app.add_flag("--list-models", options.list_models, "list the reference models and exit");
  app.add_option("--list-modes", options.list_modes,
                 "list the precision modes and exit: a line each (text, the default), or every property of "
                 "each as report.json records it (json)")
      ->expected(0, 1)
      ->default_str("text")
      ->type_name("[text|json]")
      ->check(CLI::IsMember({"text", "json"}));
  // CLI11 validates no empty value: `--list-modes ""` would list the text as if no format were given.
  app.parse_complete_callback([&options] {
    if (options.list_modes && options.list_modes->empty())
      throw CLI::ValidationError("--list-modes", "an empty format: give text or json, or no value for text");
  });
  app.add_option("--sweep", options.sweeps,
                 "run the experiment at each value of a config key, KEY=V1,V2,... with KEY a JSON pointer "
                 "(e.g. /train/batch_size=8,16,32); given again, a grid of the keys")
      ->allow_extra_args(false)
      ->check(CLI::Validator(
          [](std::string& text) {
            return sweep_axis(text) ? std::string()
                                    : "expected KEY=V1,V2,..., e.g. /train/batch_size=8,16,32";
          },
          "KEY=V1,V2,...", "sweep"));
  app.add_option("--shard", options.shard,
                 "with a sweep: run only share K of N of its points (round-robin by point index), into "
                 "the same folder layout; `ampbench merge` joins the shards' folders")
      ->check(CLI::Validator(
          [](std::string& text) {
            return shard_of(text) ? std::string() : "expected K/N with 1 <= K <= N, e.g. 2/4";
          },
          "K/N", "shard"));
  app.add_option(
         "--sweep-order", options.sweep_order,
         "with a sweep: run its points in the grid's order (default) or shuffled by the config's seed, so "
         "that a machine's drift over the sweep falls on no swept key")
      ->check(CLI::IsMember({"grid", "shuffled"}));
  add_headroom_options(app, options);
  add_debug_options(app, options);
  add_export_options(app, options);
}

std::vector<std::string> mode_names_in(const std::string& list) {
  std::vector<std::string> names;
  std::stringstream pieces(list + ",");  // a trailing comma is an empty last name, not none
  for (std::string name; std::getline(pieces, name, ',');) {
    name.erase(0, name.find_first_not_of(' '));
    name.erase(name.find_last_not_of(' ') + 1);
    names.push_back(name);
  }
  return names;
}

std::optional<sweep::SweepAxis> sweep_axis(const std::string& text) {
  const auto equals = text.find('=');
  if (equals == std::string::npos || equals == 0) return std::nullopt;
  sweep::SweepAxis axis{text.substr(0, equals), {}};
  std::string rest = text.substr(equals + 1);
  for (size_t start = 0; start <= rest.size();) {
    const auto comma = std::min(rest.find(',', start), rest.size());
    const auto item = rest.substr(start, comma - start);
    if (item.empty()) return std::nullopt;
    auto value = nlohmann::json::parse(item, nullptr, /*allow_exceptions=*/false);
    axis.values.push_back(value.is_discarded() ? nlohmann::json(item) : value);
    start = comma + 1;
  }
  return axis;
}

std::optional<sweep::Shard> shard_of(const std::string& text) {
  const auto slash = text.find('/');
  if (slash == std::string::npos) return std::nullopt;
  int64_t index = 0, count = 0;
  const auto* begin = text.data();
  const auto* end = begin + text.size();
  auto [after_index, index_error] = std::from_chars(begin, begin + slash, index);
  auto [after_count, count_error] = std::from_chars(begin + slash + 1, end, count);
  if (index_error != std::errc() || after_index != begin + slash || count_error != std::errc() ||
      after_count != end || index < 1 || index > count)
    return std::nullopt;
  return sweep::Shard{index, count};
}

std::optional<int64_t> memory_size_of(const std::string& text) {
  static const std::vector<std::pair<std::string, double>> kUnits{
      {"B", 1.0},  {"KiB", 0x1p10}, {"MiB", 0x1p20}, {"GiB", 0x1p30}, {"TiB", 0x1p40},
      {"KB", 1e3}, {"kB", 1e3},     {"MB", 1e6},     {"GB", 1e9},     {"TB", 1e12}};
  double number = 0;
  const auto* end = text.data() + text.size();
  const auto [after, error] = std::from_chars(text.data(), end, number);
  if (error != std::errc() || after == text.data()) return std::nullopt;
  const std::string unit(after, end);
  const auto found =
      std::find_if(kUnits.begin(), kUnits.end(), [&](const auto& u) { return u.first == unit; });
  if (found == kUnits.end()) return std::nullopt;
  const double bytes = number * found->second;
  // Past 2^62 no machine has it, and the byte count must stay an int64.
  if (!std::isfinite(bytes) || bytes < 1 || bytes > 0x1p62) return std::nullopt;
  return static_cast<int64_t>(bytes);
}

std::vector<report::ExportTarget> export_targets(const CliOptions& options) {
  std::vector<report::ExportTarget> targets;
  if (!options.export_json.empty()) targets.push_back({report::ExportFormat::json, options.export_json});
  if (!options.export_csv.empty()) targets.push_back({report::ExportFormat::csv, options.export_csv});
  if (!options.export_markdown.empty())
    targets.push_back({report::ExportFormat::markdown, options.export_markdown});
  if (!options.export_bmf.empty()) targets.push_back({report::ExportFormat::bmf, options.export_bmf});
  if (!options.export_benchmark_action.empty())
    targets.push_back({report::ExportFormat::benchmark_action, options.export_benchmark_action});
  return targets;
}

}  // namespace ampbench::cli
