#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "exports/report_writer.h"
#include "sweep/sweep_config.h"
#include "sweep/sweep_report.h"

namespace ampbench::cli {

// What the command line asked for. Overrides are empty when not given: the config decides then.
struct CliOptions {
  std::string config_path;
  std::vector<std::string> modes;  // each --modes' list as given (mode_names_in splits it)
  std::optional<int64_t> epochs;
  std::optional<int64_t> repeats;
  std::optional<int64_t> fidelity_seeds;
  std::optional<std::string> device;
  std::optional<std::string> out_dir;
  std::optional<int64_t> seed;
  std::optional<int64_t> threads;
  std::optional<int64_t> profile_steps;    // --profile [STEPS]
  std::optional<int64_t> numerics_steps;   // --numerics [STEPS]
  std::optional<std::string> peak_tflops;  // "X" or "MODE=X,MODE=X"
  bool quiet = false;
  bool verbose = false;
  bool dry_run = false;
  bool list_models = false;
  std::optional<std::string> list_modes;                 // --list-modes [text|json]
  std::string export_json, export_csv, export_markdown;  // "-" is stdout
  std::string export_bmf;                                // "-" is stdout
  std::string export_benchmark_action;                   // a folder
  std::string inject_fault;                              // testing only: KIND:MODE:STEP[:TRIAL]
  std::vector<std::string> sweeps;                       // --sweep KEY=V1,V2,..., one per swept key
  std::string shard;                                     // --shard K/N: a share of a sweep's points
  std::string sweep_order;                               // --sweep-order grid|shuffled
  bool max_batch = false;                                // --max-batch
  std::string memory_budget;                             // --memory-budget SIZE
};

// A --modes list as names: "fp16, bf16" -> {"fp16", "bf16"} (the spaces around a name are not part of it);
// an empty piece ("fp32,,bf16", "fp32,") is an empty name, which the option refuses.
std::vector<std::string> mode_names_in(const std::string& list);

// --shard's text, "K/N" with 1 <= K <= N, as the share of a sweep; nullopt for anything else.
std::optional<sweep::Shard> shard_of(const std::string& text);

// --memory-budget's text in bytes: a number and a unit, B, KiB, MiB, GiB, TiB (powers of 1024) or KB, MB,
// GB, TB (of 1000), "8GiB", "1.5GB"; nullopt for anything else, or below one byte.
std::optional<int64_t> memory_size_of(const std::string& text);

// --sweep's text as a sweep axis: "/train/batch_size=8,16,32" -> key and values, each value read as JSON
// when it is JSON ("8", "true", "\"x\"") and as a string otherwise ("bf16"); nullopt without a key or a
// value.
std::optional<sweep::SweepAxis> sweep_axis(const std::string& text);

// --peak-tflops as the config's peak_tflops: "989" -> 989, "bf16=989,fp32=66.9" -> {"bf16": 989, ...};
// nullopt for text that is neither (an empty item, a mode given twice, a value that is no number). The
// config parser then checks the modes and values as it does the config's own.
std::optional<nlohmann::json> peak_tflops_json(const std::string& text);

// Declares every option (with its default in --help) on `app`, bound to `options`.
void add_options(CLI::App& app, CliOptions& options);
// The report exports the options ask for (--export-json, --export-csv, --export-markdown).
std::vector<report::ExportTarget> export_targets(const CliOptions& options);
// A file to write: a path, or "-" for stdout; an empty one (an unset variable in a script) is refused
// rather than taken as "no file".
extern const CLI::Validator kOutputFile;
// What --version prints: ampbench, its commit, LibTorch, and CUDA/cuDNN when present.
std::string version_text();

}  // namespace ampbench::cli
