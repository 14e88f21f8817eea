// End to end: the ampbench binary as a user runs it.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <gtest/gtest.h>
#include <torch/cuda.h>
#include <nlohmann/json.hpp>

#include "build_paths.h"
#include "data_files.h"
#include "measure/cpu_features.h"
#include "measure/environment.h"
#include "report/csv_report.h"
#include "temp_dir_test.h"

namespace fs = std::filesystem;

using ampbench::testing::ampbench_binary;
using ampbench::testing::source_dir;
using ampbench::testing::torch_choice;

namespace {

struct Result {
  int exit_code;
  std::string out;
  std::string err;
};

std::string read_file(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

class Cli : public ampbench::testing::TempDirTest {
 protected:
  // `shell_prefix` runs before ampbench in the same shell, e.g. to set a limit for it alone.
  Result run(const std::string& args, const std::string& shell_prefix = "") {
    auto err_path = dir_ / "stderr.txt";
    std::string command = shell_prefix + ampbench_binary() + " " + args + " 2>" + err_path.string();
    FILE* pipe = popen(command.c_str(), "r");
    std::string out;
    char buffer[4096];
    size_t n;
    while ((n = fread(buffer, 1, sizeof buffer, pipe)) > 0) out.append(buffer, n);
    int status = pclose(pipe);
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out, read_file(err_path)};
  }

  fs::path write_config(const nlohmann::json& config, const std::string& name = "config.json") {
    auto path = dir_ / name;
    std::ofstream(path) << config.dump(2);
    return path;
  }

  // The tests' tiny experiment (tests/tiny_config.json, which the shell tests run too), into out/.
  nlohmann::json tiny_config() {
    std::ifstream in(fs::path(source_dir()) / "tests" / "tiny_config.json");
    auto config = nlohmann::json::parse(in);
    config["output"] = {{"dir", (dir_ / "out").string()}};
    return config;
  }

  // An fp32-only run of the tiny config, one epoch, exported to base.json; returns the config's path.
  std::string write_fp32_base_report() {
    auto config = tiny_config();
    config["precision"] = {{"modes", {"fp32"}}};
    auto path = write_config(config).string();
    EXPECT_EQ(
        run("--config " + path + " -q --epochs 1 --export-json " + (dir_ / "base.json").string()).exit_code,
        0);
    return path;
  }

  std::vector<fs::path> run_folders() {
    std::vector<fs::path> out;
    if (!fs::exists(dir_ / "out")) return out;
    for (const auto& entry : fs::directory_iterator(dir_ / "out")) out.push_back(entry.path());
    return out;
  }
};

size_t line_count(const std::string& text) { return std::count(text.begin(), text.end(), '\n'); }

}  // namespace

TEST_F(Cli, RunsEveryModeAndWritesJsonCsvAndMarkdownReports) {
  auto result = run("--config " + write_config(tiny_config()).string() + " --quiet");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  auto folders = run_folders();
  ASSERT_EQ(folders.size(), 1u);

  auto report = nlohmann::json::parse(read_file(folders[0] / "report.json"));
  EXPECT_EQ(report["schema_version"], 7);
  EXPECT_EQ(report["complete"], true);
  EXPECT_EQ(report["config"]["name"], "tiny");
  EXPECT_EQ(report["environment"]["device"], "cpu");
  EXPECT_FALSE(report["environment"]["libtorch_version"].get<std::string>().empty());
  EXPECT_EQ(report["environment"]["libtorch_choice"], torch_choice());  // as the set-up configured it
  // The allocator the run actually had: tcmalloc where the build linked it (so the link took), else
  // glibc's with its thresholds settled. A sanitized build's runtime replaces malloc either way.
#if defined(AMPBENCH_LINKS_TCMALLOC)
  EXPECT_NE(report["environment"]["host_malloc"].get<std::string>().find("/libtcmalloc_minimal.so"),
            std::string::npos)
      << report["environment"]["host_malloc"];
#elif !defined(__SANITIZE_ADDRESS__)
  EXPECT_EQ(report["environment"]["host_malloc"],
            "glibc: mmap threshold 32 MiB, trim threshold 64 MiB (fixed)");
#endif
  ASSERT_EQ(report["trials"].size(), 4u);
  std::vector<std::string> modes;
  for (const auto& mode : report["trials"]) {
    modes.push_back(mode["mode"]);
    if (mode["mode"] == "tf32") {
      // TF32 exists only on NVIDIA tensor cores: reported as skipped, with the reason, and never run.
      EXPECT_EQ(mode["status"], "skipped");
      EXPECT_NE(mode["detail"].get<std::string>().find("TF32"), std::string::npos);
      EXPECT_TRUE(mode["epochs"].empty());
      EXPECT_TRUE(mode["memory"].is_null());  // nothing measured: null, not 0
      continue;
    }
    EXPECT_EQ(mode["status"], "ok");
    EXPECT_EQ(mode["epochs"].size(), 2u);
    EXPECT_EQ(mode["master_weights_fp32"], true);
    EXPECT_EQ(mode["tf32"], false);  // TF32 is a CUDA switch: off on the CPU, bf16 included
    EXPECT_EQ(mode["memory"]["probe"], "cpu-tracking-allocator");
    EXPECT_GT(mode["memory"]["peak_bytes"].get<int64_t>(), 0);
    EXPECT_GT(mode["memory"]["static_bytes"].get<int64_t>(), 0);
    EXPECT_EQ(mode["epochs"][0]["timed_steps"], 3);  // 4 steps, 1 warm-up step left out
    EXPECT_EQ(mode["epochs"][1]["timed_steps"], 4);
    EXPECT_EQ(mode["epochs"][1]["step_seconds"].size(), 4u);
    EXPECT_EQ(mode["initial_weights_checksum"], report["trials"][0]["initial_weights_checksum"]);
    // Only fp16 has a loss scale; elsewhere it is undefined (null), not 0.
    EXPECT_EQ(mode["epochs"][0]["loss_scale"].is_null(), mode["mode"] != "fp16");
    EXPECT_EQ(mode["loss_scale"].is_null(), mode["mode"] != "fp16");
  }
  EXPECT_EQ(modes, (std::vector<std::string>{"fp32", "tf32", "fp16", "bf16"}));
  ASSERT_EQ(report["summary"].size(), 3u);  // the skipped mode has nothing to summarise
  EXPECT_EQ(report["summary"][0]["speedup_vs_fp32"], 1.0);
  EXPECT_TRUE(report["summary"][0]["fidelity"].is_null());  // fp32 is the reference
  for (int i : {1, 2}) {
    EXPECT_TRUE(report["summary"][i]["fidelity"] == "pass" || report["summary"][i]["fidelity"] == "fail");
    EXPECT_GT(report["summary"][i]["grad_cosine_vs_fp32"].get<double>(), 0.9);
  }
  EXPECT_EQ(report["environment"]["config_hash"].get<std::string>().size(), 16u);
  // One trial: no spread, no interval (null, not 0), and a warning that says so.
  EXPECT_TRUE(report["summary"][1]["samples_per_second"]["stddev"].is_null());
  EXPECT_TRUE(report["summary"][1]["speedup_interval_95"].is_null());
  EXPECT_EQ(report["summary"][1]["epochs_compared"], nlohmann::json::array({2}));
  std::vector<std::string> kinds;
  for (const auto& w : report["warnings"]) kinds.push_back(w["kind"]);
  EXPECT_NE(std::find(kinds.begin(), kinds.end(), "few_repeats"), kinds.end());
  EXPECT_NE(std::find(kinds.begin(), kinds.end(), "skipped"), kinds.end());
  // fp16 and bf16 are flagged exactly where this CPU lacks their arithmetic.
  const auto cpu = ampbench::measure::cpu_16bit_arithmetic();
  std::set<std::string> without_arithmetic;
  for (const auto& w : report["warnings"])
    if (w["kind"] == "no_16bit_arithmetic") without_arithmetic.insert(w["mode"].get<std::string>());
  std::set<std::string> expected;
  if (cpu && !cpu->fp16) expected.insert("fp16");
  if (cpu && !cpu->bf16) expected.insert("bf16");
  EXPECT_EQ(without_arithmetic, expected);

  auto csv = read_file(folders[0] / "report.csv");
  EXPECT_EQ(
      csv.substr(0, csv.find('\n')),
      "mode,trial,epoch,status,seconds,timed_steps,timed_samples,samples_per_second,step_p50_s,step_p90_s,"
      "step_p99_s,train_loss,val_loss,val_accuracy,val_perplexity,peak_bytes,memory_probe,loss_scale,skipped_"
      "steps,"
      "static_bytes,activation_peak_bytes,tf32,channels_last,detail,purpose,seed");
  EXPECT_EQ(line_count(csv), 1u + 3 * 2 + 1);  // the skipped mode: one row, no epoch
  EXPECT_NE(csv.find("\nfp32,1,1,ok,"), std::string::npos);
  EXPECT_NE(csv.find("\ntf32,1,,skipped,"), std::string::npos);
  // summary.csv: a row per summarised mode (the skipped one has none), each verdict beside its figures.
  auto summary = read_file(folders[0] / "summary.csv");
  EXPECT_EQ(summary.substr(0, summary.find(',')), "mode");
  EXPECT_EQ(line_count(summary), 1u + 3);
  EXPECT_NE(summary.find("\nbf16,1,"), std::string::npos) << summary;

  // The Markdown summary sits beside them; the console summary names every mode, the skipped one too.
  auto markdown = read_file(folders[0] / "report.md");
  EXPECT_NE(markdown.find("| fp16 |"), std::string::npos);
  EXPECT_NE(markdown.find("| tf32 | skipped |"), std::string::npos);
  for (const char* mode : {"fp32", "tf32", "fp16", "bf16"})
    EXPECT_NE(result.out.find(mode), std::string::npos);
}

TEST_F(Cli, EveryRunGetsANewFolder) {
  auto config = write_config(tiny_config()).string();
  ASSERT_EQ(run("--config " + config + " -q --modes bf16 --epochs 1").exit_code, 0);
  ASSERT_EQ(run("--config " + config + " -q --modes bf16 --epochs 1").exit_code, 0);
  EXPECT_EQ(run_folders().size(), 2u);
}

TEST_F(Cli, OverridesReplaceTheConfigsValues) {
  auto result = run("--config " + write_config(tiny_config()).string() +
                    " --modes bf16,fp32 --epochs 1 --seed 9 --dry-run");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  auto resolved = nlohmann::json::parse(result.out);
  EXPECT_EQ(resolved["precision"]["modes"], nlohmann::json::array({"bf16", "fp32"}));
  EXPECT_EQ(resolved["train"]["epochs"], 1);
  EXPECT_EQ(resolved["seed"], 9);
  EXPECT_TRUE(run_folders().empty());  // a dry run writes nothing
  auto spaced = run("--config " + write_config(tiny_config()).string() + " --modes 'fp16, bf16' --dry-run");
  ASSERT_EQ(spaced.exit_code, 0) << spaced.err;
  EXPECT_EQ(nlohmann::json::parse(spaced.out)["precision"]["modes"], nlohmann::json::array({"fp16", "bf16"}));
}

TEST_F(Cli, ThreadsAreLibTorchsIntraOpThreadsForTheRunAndTheReportRecordsThem) {
  const auto config = write_config(tiny_config()).string();
  auto one = run("--config " + config + " -q --modes fp32 --epochs 1 --threads 1");
  ASSERT_EQ(one.exit_code, 0) << one.err;
  auto report = nlohmann::json::parse(read_file(run_folders().at(0) / "report.json"));
  EXPECT_EQ(report["environment"]["torch_threads"], 1);
  EXPECT_EQ(report["config"]["train"]["threads"], 1);
  // Unset, LibTorch chooses, and the resolved config has no key for it: its hash is a config's of before.
  auto resolved = nlohmann::json::parse(run("--config " + config + " --dry-run").out);
  EXPECT_FALSE(resolved["train"].contains("threads")) << resolved["train"];
  auto zero = run("--config " + config + " --dry-run --threads 0");
  EXPECT_EQ(zero.exit_code, 2);
  EXPECT_NE(zero.err.find("--threads"), std::string::npos) << zero.err;
  auto in_config = tiny_config();
  in_config["train"]["threads"] = 0;
  auto bad = run("--config " + write_config(in_config).string() + " --dry-run");
  EXPECT_EQ(bad.err, "config error: /train/threads: expected an integer in [1, 4096], got 0\n");
}

TEST_F(Cli, ProfileWritesWhereTheTimeWentAndATracePerMode) {
  const auto config = write_config(tiny_config()).string();
  // Without a value, --profile is 10 steps; without the flag, the resolved config has no profile.
  EXPECT_EQ(nlohmann::json::parse(run("--config " + config + " --dry-run --profile").out)["profile"]["steps"],
            10);
  EXPECT_FALSE(nlohmann::json::parse(run("--config " + config + " --dry-run").out).contains("profile"));
  auto zero = run("--config " + config + " --dry-run --profile 0");
  EXPECT_EQ(zero.exit_code, 2);
  EXPECT_NE(zero.err.find("--profile"), std::string::npos) << zero.err;

  auto result = run("--config " + config + " -q --modes fp32,bf16 --epochs 1 --profile 2");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.out.find("where the time went"), std::string::npos) << result.out;
  const auto folder = run_folders().at(0);
  auto report = nlohmann::json::parse(read_file(folder / "report.json"));
  ASSERT_EQ(report["profiles"].size(), 2u);
  for (const auto& p : report["profiles"]) {
    EXPECT_EQ(p["status"], "ok");
    EXPECT_EQ(p["steps"], 2);
    const auto trace = nlohmann::json::parse(read_file(folder / p["trace_file"].get<std::string>()));
    EXPECT_FALSE(trace["traceEvents"].empty());  // what Perfetto and chrome://tracing open
  }
  EXPECT_EQ(report["profiles"][0]["trace_file"], "trace-fp32.json");
  const auto csv = read_file(folder / "profile.csv");
  EXPECT_EQ(csv.substr(0, csv.find('\n')), ampbench::report::kProfileCsvColumns);
  EXPECT_NE(csv.find("bf16,step,"), std::string::npos);
  EXPECT_NE(read_file(folder / "report.md").find("**Where the time went**"), std::string::npos);
}

// A flag replaces a config value; it does not excuse a bad one, which would come back without the flag.
TEST_F(Cli, AConfigValueAFlagReplacesMustStillBeValid) {
  auto config = tiny_config();
  config["output"]["dir"] = 17;
  config["train"]["epochs"] = -3;
  auto out = run("--config " + write_config(config).string() + " --out " + (dir_ / "elsewhere").string() +
                 " --epochs 1");
  EXPECT_EQ(out.exit_code, 2);
  EXPECT_EQ(out.err, "config error: /train/epochs: expected an integer in [1, 1000000], got -3\n");
  config["train"]["epochs"] = 1;
  out = run("--config " + write_config(config).string() + " --out " + (dir_ / "elsewhere").string());
  EXPECT_EQ(out.exit_code, 2);
  EXPECT_EQ(out.err, "config error: /output/dir: expected a string, got 17\n");
  EXPECT_FALSE(fs::exists(dir_ / "elsewhere"));
}

// A CI job validates a config with --dry-run: it must fail wherever the run itself would refuse to start.
TEST_F(Cli, ADryRunRefusesWhatTheRunWouldRefuseAndWritesNothing) {
  const auto config = write_config(tiny_config()).string();
  auto dry_run = [&](const std::string& args) { return run("--config " + config + " --dry-run " + args); };

  if (!torch::cuda::is_available()) {
    auto cuda = dry_run("--device cuda:0");
    EXPECT_EQ(cuda.exit_code, 2);
    EXPECT_EQ(cuda.err.rfind("config error: /device (from --device): cuda:0 requested", 0), 0u) << cuda.err;
  }
  auto missing_data = tiny_config();
  missing_data["data"] = {{"mnist", {{"dir", (dir_ / "mnist").string()}}}};
  auto data = run("--config " + write_config(missing_data, "mnist.json").string() + " --dry-run");
  EXPECT_EQ(data.exit_code, 2);
  EXPECT_EQ(data.err, "config error: /data/mnist/dir: missing data file " +
                          (dir_ / "mnist" / "train-images-idx3-ubyte").string() + "\n");

  auto export_path = dry_run("--export-csv " + (dir_ / "no" / "folder.csv").string());
  EXPECT_EQ(export_path.exit_code, 2);
  EXPECT_EQ(export_path.err.rfind("output error: cannot write", 0), 0u) << export_path.err;

  std::ofstream(dir_ / "a-file") << "in the way";
  auto out_dir = dry_run("--out " + (dir_ / "a-file" / "results").string());
  EXPECT_EQ(out_dir.exit_code, 2);
  EXPECT_EQ(out_dir.err, "output error: cannot create output folder " +
                             (dir_ / "a-file" / "results").string() + ": " + (dir_ / "a-file").string() +
                             " is not a folder\n");
  auto real_run = run("--config " + config + " --out " + (dir_ / "a-file" / "results").string());
  EXPECT_EQ(real_run.exit_code, 2);
  EXPECT_EQ(real_run.err, out_dir.err);  // the run itself refuses it in the same words

  auto fault = dry_run("--modes fp32 --inject-fault nan:bf16:1");
  EXPECT_EQ(fault.exit_code, 2);
  EXPECT_EQ(fault.err.rfind("usage error: --inject-fault: ", 0), 0u) << fault.err;

  for (const auto& result : {data, export_path, out_dir, fault})
    EXPECT_TRUE(result.out.empty()) << result.out;
  EXPECT_FALSE(fs::exists(dir_ / "out"));
  EXPECT_FALSE(fs::exists(dir_ / "no"));
  EXPECT_EQ(dry_run("--out " + (dir_ / "new" / "results").string()).exit_code, 0);
  EXPECT_FALSE(fs::exists(dir_ / "new"));  // a folder that a run would create is fine, and not created
}

TEST_F(Cli, ABadConfigExitsTwoWithOneLineAndWritesNothing) {
  auto config = tiny_config();
  config["train"]["epochs"] = -3;
  auto result = run("--config " + write_config(config).string());
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_EQ(result.err, "config error: /train/epochs: expected an integer in [1, 1000000], got -3\n");
  EXPECT_TRUE(result.out.empty());
  EXPECT_FALSE(fs::exists(dir_ / "out"));
}

TEST_F(Cli, MalformedJsonExitsTwo) {
  auto path = dir_ / "broken.json";
  std::ofstream(path) << "{\"name\": \"x\",";
  auto result = run("--config " + path.string());
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_EQ(line_count(result.err), 1u);
  EXPECT_NE(result.err.find("invalid JSON"), std::string::npos) << result.err;
}

TEST_F(Cli, UsageErrorsExitTwo) {
  auto config = write_config(tiny_config()).string();
  for (const std::string& args :
       std::vector<std::string>{"--config " + config + " --modes fp32,fp8",
                                "--config " + config + " --epochs 0", "--config " + config + " --device tpu",
                                "--no-such-option", "", "--config " + (dir_ / "missing.json").string(),
                                "--config " + config + " --inject-fault nan:bf16:0",
                                // an output folder that cannot be made: fails before training
                                "--config " + config + " --out " + config + "/runs"}) {
    auto result = run(args);
    EXPECT_EQ(result.exit_code, 2) << args;
    EXPECT_EQ(line_count(result.err), 1u) << args << ": " << result.err;
  }
  EXPECT_FALSE(fs::exists(dir_ / "out"));
}

TEST_F(Cli, UnavailableCudaIsAUsageError) {
  if (torch::cuda::is_available()) GTEST_SKIP() << "this machine has a GPU";
  auto result = run("--config " + write_config(tiny_config()).string() + " --device cuda:0");
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.err.find("config error: /device (from --device): cuda:0 requested"), std::string::npos)
      << result.err;
  EXPECT_FALSE(fs::exists(dir_ / "out"));
}

TEST_F(Cli, AutoOnACudaBuildWithoutAGpuSaysItRunsOnTheCpu) {
  if (torch::cuda::is_available()) GTEST_SKIP() << "a CUDA GPU is visible";
  auto result = run("--config " + write_config(tiny_config()).string() + " --device auto --dry-run");
  EXPECT_EQ(result.exit_code, 0) << result.err;
  const bool said =
      result.err.find("no CUDA GPU is visible: device auto runs on the CPU") != std::string::npos;
  EXPECT_EQ(said, ampbench::measure::cuda_runtime_version().has_value()) << result.err;
}

TEST_F(Cli, VersionHelpAndListModels) {
  auto version = run("--version");
  EXPECT_EQ(version.exit_code, 0);
  EXPECT_NE(version.out.find("ampbench "), std::string::npos);
  EXPECT_NE(version.out.find("LibTorch "), std::string::npos);
  EXPECT_NE(version.out.find("chosen: " + torch_choice()), std::string::npos) << version.out;
  auto help = run("--help");
  EXPECT_EQ(help.exit_code, 0);
  for (const char* option : {"--config", "--modes", "--epochs", "--device", "--out", "--seed", "--quiet",
                             "--verbose", "--dry-run", "--list-models", "--version"}) {
    EXPECT_NE(help.out.find(option), std::string::npos) << option;
  }
  auto models = run("--list-models");
  EXPECT_EQ(models.exit_code, 0);
  for (const char* model : {"mlp", "resnet18", "resnet34", "resnet50"}) {
    EXPECT_NE(models.out.find(model), std::string::npos) << model;
  }
}

TEST_F(Cli, ExportsGoWhereAskedAndDashIsStdout) {
  auto json_path = dir_ / "exported.json";
  auto result =
      run("--config " + write_config(tiny_config()).string() + " -q --modes fp32 --epochs 1 --export-json " +
          json_path.string() + " --export-markdown -");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(nlohmann::json::parse(read_file(json_path))["schema_version"], 7);
  // stdout carries the Markdown alone; the console summary moved to stderr.
  EXPECT_EQ(result.out.rfind("### ampbench: tiny", 0), 0u) << result.out;
  EXPECT_NE(result.err.find("reports: "), std::string::npos);
}

TEST_F(Cli, AnUnwritableExportFailsBeforeTraining) {
  auto result = run("--config " + write_config(tiny_config()).string() + " --export-csv " +
                    (dir_ / "no" / "such" / "folder.csv").string());
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_EQ(result.err.rfind("output error: cannot write", 0), 0u) << result.err;
  EXPECT_FALSE(fs::exists(dir_ / "out"));  // no run folder, no training
}

TEST_F(Cli, AFailedGateExitsThreeAndSaysWhich) {
  auto config = tiny_config();
  config["precision"] = {{"modes", {"fp32", "bf16"}}};
  config["gates"] = {{"min_speedup", {{"bf16", 1000.0}}}, {"max_memory_ratio", {{"bf16", 100.0}}}};
  auto result = run("--config " + write_config(config).string() + " -q --epochs 1");
  EXPECT_EQ(result.exit_code, 3) << result.err;
  EXPECT_NE(result.out.find("gate FAIL: bf16 min_speedup:"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("gate pass: bf16 max_memory_ratio:"), std::string::npos) << result.out;
  auto report = nlohmann::json::parse(read_file(run_folders().at(0) / "report.json"));
  EXPECT_EQ(report["gates"][0]["passed"], false);
  EXPECT_EQ(report["gates"][1]["passed"], true);
}

TEST_F(Cli, AGateWhoseBaselineDidNotFinishSaysSo) {
  auto config = tiny_config();
  config["precision"] = {{"modes", {"fp32", "bf16"}}};
  config["gates"] = {{"max_val_loss_delta", {{"bf16", 1.0}}}};
  auto result = run("--config " + write_config(config).string() + " -q --inject-fault nan:fp32:6");
  EXPECT_EQ(result.exit_code, 3) << result.err;
  EXPECT_NE(
      result.out.find("gate FAIL: bf16 max_val_loss_delta: no value (fp32, the baseline, did not finish)"),
      std::string::npos)
      << result.out;
}

TEST_F(Cli, CommandLineValuesAreCheckedWithTheOptionNamed) {
  const auto config = write_config(tiny_config()).string();
  auto refused = [&](const std::string& options, const std::string& message) {
    auto result = run("--config " + config + " -q " + options);
    EXPECT_EQ(result.exit_code, 2) << options;
    EXPECT_EQ(line_count(result.err), 1u) << result.err;
    EXPECT_NE(result.err.find(message), std::string::npos) << options << ": " << result.err;
  };
  refused("--seed abc", "usage error: --seed: expected an integer in [0, 9223372036854775807], got \"abc\"");
  refused("--seed 99999999999999999999", "got \"99999999999999999999\"");  // not clamped to the largest
  refused("--epochs 0", "usage error: --epochs: expected an integer in [1, 1000000], got \"0\"");
  refused("--export-json ''", "usage error: --export-json: expected a file path, or - for stdout");
  refused("--peak-tflops fp32=1,fp32=2",
          "usage error: --peak-tflops: expected X or MODE=X,MODE=X with each mode once");
  refused("--modes fp32,fp32",
          "config error: /precision/modes/1 (from --modes): mode \"fp32\" is listed twice");
  // A planted fault that could never fire would let a test pass without it.
  refused("--modes fp32 --inject-fault nan:bf16:2",
          "usage error: --inject-fault: mode bf16 is not among the modes that run here");
  refused("--inject-fault nan:fp32:9", "usage error: --inject-fault: step 9 is past a trial's last step (8)");
  refused("--inject-fault nan:fp32:2:2",
          "usage error: --inject-fault: trial 2 is past the last trial of each mode (1)");
  refused("--inject-fault nan:fp32:2:0", "usage error: --inject-fault: expected KIND:MODE:STEP[:TRIAL]");
  // The config's device is the CPU, where tf32 is skipped.
  refused("--modes fp32,tf32 --inject-fault nan:tf32:2",
          "usage error: --inject-fault: mode tf32 is not among the modes that run here");
  // An export that is not a regular file would be replaced by one (the write renames a new file over it).
  refused("--export-json /dev/stdout", "output error: cannot write /dev/stdout: not a regular file");
  EXPECT_FALSE(fs::exists(dir_ / "out"));
}

TEST_F(Cli, CompareFailsWhenNewLacksAModeOrIsPartial) {
  auto config = tiny_config();
  config["precision"] = {{"modes", {"fp32", "bf16"}}};
  ASSERT_EQ(run("--config " + write_config(config).string() + " -q --epochs 1 --export-json " +
                (dir_ / "base.json").string())
                .exit_code,
            0);
  const auto base = (dir_ / "base.json").string();
  // NEW's bf16 ran out of memory: it has no figures, which no limit is needed to call a regression.
  auto oom = nlohmann::json::parse(read_file(base));
  oom["summary"].erase(1);
  oom["trials"][1]["status"] = "oom";
  oom["trials"][1]["detail"] = "out of memory at batch size 16";
  write_config(oom, "oom.json");
  auto result = run("compare " + base + " " + (dir_ / "oom.json").string());
  EXPECT_EQ(result.exit_code, 3) << result.out << result.err;
  EXPECT_NE(result.out.find("regression: bf16: no figures in " + (dir_ / "oom.json").string() +
                            " (oom: out of memory at batch size 16)"),
            std::string::npos)
      << result.out;
  // With repeats, a trial of a mode that still has figures did not finish: its figures come from fewer
  // trials, and the failed one is a regression of its own.
  auto one_diverged = nlohmann::json::parse(read_file(base));
  auto extra = one_diverged["trials"][1];
  extra["trial"] = 2;
  extra["status"] = "diverged";
  extra["detail"] = "the training loss became NaN or inf at step 3";
  one_diverged["trials"].push_back(extra);
  write_config(one_diverged, "one_diverged.json");
  result = run("compare " + base + " " + (dir_ / "one_diverged.json").string());
  EXPECT_EQ(result.exit_code, 3) << result.out << result.err;
  EXPECT_NE(result.out.find("regression: bf16: a trial in " + (dir_ / "one_diverged.json").string() +
                            " did not finish (diverged: the training loss became NaN or inf at step 3)"),
            std::string::npos)
      << result.out;
  // NEW was stopped before it finished.
  auto partial = nlohmann::json::parse(read_file(base));
  partial["complete"] = false;
  partial["stopped_by"] = "SIGINT";
  write_config(partial, "partial.json");
  result = run("compare " + base + " " + (dir_ / "partial.json").string());
  EXPECT_EQ(result.exit_code, 3) << result.out << result.err;
  EXPECT_NE(result.out.find("is a partial report: its run was stopped by SIGINT"), std::string::npos)
      << result.out;
  // A Markdown file that cannot be written is refused before anything is written.
  result = run("compare " + base + " " + base + " --markdown " + dir_.string());
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.err.find("output error: cannot write " + dir_.string() + ": is a directory"),
            std::string::npos)
      << result.err;
  EXPECT_FALSE(fs::exists(dir_.string() + ".tmp"));
}

TEST_F(Cli, CompareFlagsARegressionAndSaysWhatOneTrialCannotTell) {
  write_fp32_base_report();
  // A "new" report whose fp32 throughput halved (its one trial's epochs took twice as long) and whose
  // memory doubled.
  auto worse = nlohmann::json::parse(read_file(dir_ / "base.json"));
  worse["summary"][0]["samples_per_second"]["median"] =
      worse["summary"][0]["samples_per_second"]["median"].get<double>() / 2;
  for (auto& epoch : worse["trials"][0]["epochs"]) epoch["seconds"] = epoch["seconds"].get<double>() * 2;
  worse["summary"][0]["peak_bytes"] = worse["summary"][0]["peak_bytes"].get<int64_t>() * 2;
  write_config(worse, "worse.json");
  auto base = (dir_ / "base.json").string(), next = (dir_ / "worse.json").string();

  EXPECT_EQ(run("compare " + base + " " + base + " --max-slowdown 0.1").exit_code, 0);
  // Memory is compared exactly; one trial a side cannot tell a slowdown from noise, and says so.
  auto regressed = run("compare " + base + " " + next + " --max-slowdown 0.1 --max-memory-increase 0.5");
  EXPECT_EQ(regressed.exit_code, 3);
  EXPECT_NE(
      regressed.out.find("undecided: fp32: 50.0% slower, limit 10.0%: with one of the trials on a side, "
                         "noise cannot be told from change"),
      std::string::npos)
      << regressed.out;
  EXPECT_NE(regressed.out.find("regression: fp32: peak memory 100.0% higher, limit 50.0%"), std::string::npos)
      << regressed.out;
  // Without limits, the defaults judge: never "ok" for a halved throughput.
  auto by_default = run("compare " + base + " " + next);
  EXPECT_EQ(by_default.exit_code, 3);
  EXPECT_NE(by_default.out.find("regression: fp32: peak memory 100.0% higher, limit 7.0% (default)"),
            std::string::npos)
      << by_default.out;
  EXPECT_NE(by_default.out.find("UNJUDGED"), std::string::npos) << by_default.out;
  auto slower_only = worse;
  slower_only["summary"][0]["peak_bytes"] =
      nlohmann::json::parse(read_file(base))["summary"][0]["peak_bytes"];
  write_config(slower_only, "slower.json");
  auto unjudged = run("compare " + base + " " + (dir_ / "slower.json").string());
  EXPECT_EQ(unjudged.exit_code, 5) << unjudged.out;  // no regression found, but nothing judged either
  EXPECT_NE(unjudged.out.find("undecided: fp32: 50.0% slower, limit 7.0% (default)"), std::string::npos)
      << unjudged.out;
}

TEST_F(Cli, CompareRefusesDifferentExperimentsAndReadsOlderSchemas) {
  const auto path = write_fp32_base_report();
  const auto base = (dir_ / "base.json").string();
  auto other = nlohmann::json::parse(read_file(base));
  other["environment"]["config_hash"] = "0000000000000000";
  write_config(other, "other.json");
  auto refused = run("compare " + base + " " + (dir_ / "other.json").string());
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_NE(refused.err.find("different experiment"), std::string::npos) << refused.err;
  EXPECT_EQ(run("compare " + base + " " + (dir_ / "other.json").string() + " --force").exit_code, 0);
  EXPECT_EQ(run("compare " + base + " " + path).exit_code, 2);  // a config is not a report

  // A baseline stored by an older ampbench (schema version 1, without the fields added since) still
  // compares; a report from a newer one is refused, saying why.
  auto old_baseline = nlohmann::json::parse(read_file(dir_ / "base.json"));
  old_baseline["schema_version"] = 1;
  for (const char* added : {"stopped_by", "data_on_device", "train_flops_per_sample"})
    old_baseline.erase(added);
  for (auto& mode : old_baseline["summary"]) {
    for (const char* added :
         {"static_bytes", "activation_bytes", "activation_ratio_vs_fp32", "val_perplexity", "achieved_tflops",
          "peak_tflops", "mfu", "fidelity", "grad_cosine_vs_fp32"})
      mode.erase(added);
  }
  auto old_path = write_config(old_baseline, "old.json").string();
  EXPECT_EQ(run("compare " + old_path + " " + base).exit_code, 0);
  auto newer = old_baseline;
  newer["schema_version"] = 8;
  auto too_new = run("compare " + base + " " + write_config(newer, "newer.json").string());
  EXPECT_EQ(too_new.exit_code, 2);
  EXPECT_EQ(too_new.err,
            "compare error: " + (dir_ / "newer.json").string() +
                ": schema version 8 is newer than this ampbench reads (1 to 7): update ampbench to "
                "compare it\n");
}

TEST_F(Cli, ADivergedModeIsMarkedAndTheOthersStillRun) {
  auto result = run("--config " + write_config(tiny_config()).string() +
                    " -q --modes fp32,fp16,bf16 --epochs 2 --inject-fault nan:bf16:6");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  auto report = nlohmann::json::parse(read_file(run_folders().at(0) / "report.json"));
  EXPECT_EQ(report["complete"], true);
  ASSERT_EQ(report["trials"].size(), 3u);
  const auto& bf16 = report["trials"][2];
  EXPECT_EQ(bf16["mode"], "bf16");
  EXPECT_EQ(bf16["status"], "diverged");
  EXPECT_EQ(bf16["stopped_at_step"], 6);  // 4 steps an epoch: step 2 of epoch 2
  EXPECT_EQ(bf16["epochs"].size(), 1u);   // epoch 1 finished before it and is kept
  for (int i : {0, 1}) {
    EXPECT_EQ(report["trials"][i]["status"], "ok");
    EXPECT_EQ(report["trials"][i]["epochs"].size(), 2u);
  }
  EXPECT_EQ(report["summary"].size(), 2u);  // only finished trials are compared
  std::vector<std::string> kinds;
  for (const auto& w : report["warnings"]) kinds.push_back(w["kind"]);
  EXPECT_NE(std::find(kinds.begin(), kinds.end(), "diverged"), kinds.end());
  EXPECT_NE(result.out.find("bf16 trial 1: the training loss became NaN or inf at step 6"), std::string::npos)
      << result.out;
}

TEST_F(Cli, AnOutOfMemoryModeIsMarkedWithItsBatchSize) {
  auto result = run("--config " + write_config(tiny_config()).string() +
                    " -q --modes fp32,fp16,bf16 --epochs 1 --inject-fault oom:fp16:2");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  auto report = nlohmann::json::parse(read_file(run_folders().at(0) / "report.json"));
  const auto& fp16 = report["trials"][1];
  EXPECT_EQ(fp16["status"], "oom");
  EXPECT_NE(fp16["detail"].get<std::string>().find("out of memory at batch size 16"), std::string::npos);
  EXPECT_EQ(report["trials"][0]["status"], "ok");
  EXPECT_EQ(report["trials"][2]["status"], "ok");  // bf16 ran after it
}

TEST_F(Cli, ARunInWhichNoTrialFinishedExitsFour) {
  auto config = tiny_config();
  config["repeats"] = 2;
  auto result =
      run("--config " + write_config(config).string() + " -q --modes fp16 --inject-fault oom:fp16:2");
  EXPECT_EQ(result.exit_code, 4) << result.err;
  EXPECT_NE(result.out.find("no trial finished"), std::string::npos) << result.out;
  auto report = nlohmann::json::parse(read_file(run_folders().at(0) / "report.json"));
  EXPECT_TRUE(report["summary"].empty());
  EXPECT_EQ(report["trials"].size(), 2u);
  // One finished trial is a measurement: the same run with fp32 beside it succeeds.
  EXPECT_EQ(
      run("--config " + write_config(config).string() + " -q --modes fp32,fp16 --inject-fault oom:fp16:2")
          .exit_code,
      0);
}

// LibTorch would try to allocate it and fail with a line about its allocator (exit 1), or the kernel would
// end the process; the config asks for it, so the config is what is wrong.
TEST_F(Cli, SyntheticDataLargerThanTheHostsMemoryIsRefusedBeforeAnythingIsMade) {
  auto config = tiny_config();
  config["data"]["synthetic"]["train_samples"] = int64_t{1'000'000'000'000};
  const auto path = write_config(config).string();
  for (const std::string extra : {"", " --dry-run"}) {
    auto result = run("--config " + path + extra);
    EXPECT_EQ(result.exit_code, 2) << result.err;
    EXPECT_EQ(line_count(result.err), 1u) << result.err;
    EXPECT_EQ(result.err.rfind("config error: /data/synthetic/train_samples: the data set needs 181.9 TiB of "
                               "host memory, and ",
                               0),
              0u)
        << result.err;
    EXPECT_NE(result.err.find(" is available"), std::string::npos) << result.err;
    EXPECT_TRUE(run_folders().empty());
  }
}

TEST_F(Cli, AHostAllocationThatFailsIsMarkedOutOfMemoryNotFailed) {
#ifdef __SANITIZE_ADDRESS__
  GTEST_SKIP() << "AddressSanitizer's shadow memory does not fit under an address-space limit";
#endif
  if (torch::cuda::is_available()) GTEST_SKIP() << "a CUDA context does not fit under an address-space limit";
  // The CPU allocator reports a failed malloc as a plain error, not OutOfMemoryError: a batch that does
  // not fit in host memory is still a size that does not fit, not a broken run. A width-65536 layer on a
  // batch of 2^19 asks for one 128 GiB block, which an 8 GiB address-space limit refuses on any host
  // (without one, Linux may grant it and kill the process when it is touched).
  const int64_t batch = int64_t(1) << 19;
  auto config = tiny_config();
  config["model"]["options"]["width"] = 65536;
  config["data"]["synthetic"] = {
      {"train_samples", batch}, {"val_samples", 1}, {"shape", {1}}, {"classes", 2}};
  config["train"] = {{"epochs", 1}, {"batch_size", batch}};
  auto result =
      run("--config " + write_config(config).string() + " -q --modes fp32", "ulimit -v 8388608 && ");
  // Its only mode ran out of memory: nothing was measured, which a CI job must not read as success.
  ASSERT_EQ(result.exit_code, 4) << result.err;
  EXPECT_NE(result.err.find("error: no trial finished in any mode: nothing was measured"), std::string::npos)
      << result.err;
  auto report = nlohmann::json::parse(read_file(run_folders().at(0) / "report.json"));
  const auto& fp32 = report["trials"][0];
  EXPECT_EQ(fp32["status"], "oom");
  EXPECT_NE(fp32["detail"].get<std::string>().find("out of memory at batch size 524288: "), std::string::npos)
      << fp32["detail"];
}

TEST_F(Cli, ATrialLostToAnErrorIsMarkedTheOthersRunAndTheRunExitsOne) {
  auto result = run("--config " + write_config(tiny_config()).string() +
                    " -q --modes fp32,fp16,bf16 --epochs 1 --inject-fault error:fp16:2");
  EXPECT_EQ(result.exit_code, 1) << result.err;
  EXPECT_NE(result.err.find("error: fp16 trial 1 failed: injected error at step 2\n"), std::string::npos)
      << result.err;
  auto report = nlohmann::json::parse(read_file(run_folders().at(0) / "report.json"));
  EXPECT_EQ(report["complete"], true);
  const auto& fp16 = report["trials"][1];
  EXPECT_EQ(fp16["status"], "failed");
  EXPECT_EQ(fp16["detail"], "injected error at step 2");
  EXPECT_EQ(report["trials"][0]["status"], "ok");
  EXPECT_EQ(report["trials"][2]["status"], "ok");  // bf16 ran after it
  EXPECT_EQ(report["summary"].size(), 2u);
  EXPECT_NE(result.out.find("warning: fp16 trial 1: failed: injected error at step 2"), std::string::npos)
      << result.out;  // the summary is printed all the same
}

// With repeats, one failed trial of a mode leaves the other's figures: the mode keeps its place in the
// tables, and compare calls the failed trial a regression.
// Planted figures in a real report: every epoch of trial i takes seconds[i], and the final val loss at
// each seed (the timed trials and the fidelity trials in order) is raised by raise[k].
nlohmann::json planted(nlohmann::json report, const std::vector<double>& seconds,
                       const std::vector<double>& raise = {}) {
  for (size_t i = 0; i < report["trials"].size(); ++i)
    for (auto& epoch : report["trials"][i]["epochs"]) epoch["seconds"] = seconds.at(i);
  if (raise.empty()) return report;
  for (auto& trial : report["trials"])
    trial["epochs"].back()["val_loss"] = trial["epochs"].back()["val_loss"].get<double>() + raise[0];
  for (size_t k = 0; k < report["fidelity_trials"].size(); ++k) {
    auto& last = report["fidelity_trials"][k]["epochs"].back();
    last["val_loss"] = last["val_loss"].get<double>() + raise.at(k + 1);
  }
  return report;
}

TEST_F(Cli, CompareJudgesSpeedAndValLossOnTheSpreadOfTrialsAndSeeds) {
  auto config = tiny_config();
  config["precision"] = {{"modes", {"fp32"}}};
  ASSERT_EQ(run("--config " + write_config(config).string() +
                " -q --epochs 2 --repeats 5 --fidelity-seeds 3 --export-json " + (dir_ / "run.json").string())
                .exit_code,
            0);
  const auto report = nlohmann::json::parse(read_file(dir_ / "run.json"));
  ASSERT_EQ(report["fidelity_trials"].size(), 2u);
  const auto base = write_config(planted(report, {1.0, 1.01, 0.99, 1.02, 0.98}), "base.json").string();
  auto compare_with = [&](const nlohmann::json& next) {
    return run("compare " + base + " " + write_config(next, "new.json").string());
  };
  // 20 % slower in every trial, with the same small spread: beyond the noise.
  auto slower = compare_with(planted(report, {1.25, 1.2625, 1.2375, 1.275, 1.225}));
  EXPECT_EQ(slower.exit_code, 3) << slower.out;
  EXPECT_NE(slower.out.find("regression: fp32: 20.0% slower, limit 7.0% (default) (95% CI +"),
            std::string::npos)
      << slower.out;
  // 8 % slower at the medians, but the trials spread by 15 % either way: within the noise, and said so.
  auto noisy = compare_with(planted(report, {1.087, 1.25, 0.924, 1.196, 0.978}));
  EXPECT_EQ(noisy.exit_code, 0) << noisy.out;
  EXPECT_NE(noisy.out.find("undecided: fp32: 8.0% slower, limit 7.0% (default)"), std::string::npos)
      << noisy.out;
  EXPECT_NE(noisy.out.find("within the noise, so not judged a regression"), std::string::npos) << noisy.out;
  // 5 % slower: inside the limit.
  auto within = compare_with(planted(report, {1.05, 1.0605, 1.0395, 1.071, 1.029}));
  EXPECT_EQ(within.exit_code, 0) << within.out;
  EXPECT_EQ(within.out.find("regression:"), std::string::npos) << within.out;
  EXPECT_EQ(within.out.find("undecided:"), std::string::npos) << within.out;
  // The val loss, paired by seed: up by 0.2 at every seed is a regression past the default limit (BASE's
  // fidelity tolerance, 0.05); up by 0.06 on average but 0.0 to 0.12 across seeds is within the noise.
  const std::vector<double> same{1.0, 1.01, 0.99, 1.02, 0.98};
  auto worse_loss = compare_with(planted(report, same, {0.2, 0.2, 0.2}));
  EXPECT_EQ(worse_loss.exit_code, 3) << worse_loss.out;
  EXPECT_NE(worse_loss.out.find("regression: fp32: val loss up by 0.2000, limit 0.0500 (default)"),
            std::string::npos)
      << worse_loss.out;
  auto noisy_loss = compare_with(planted(report, same, {0.06, 0.0, 0.12}));
  EXPECT_EQ(noisy_loss.exit_code, 0) << noisy_loss.out;
  EXPECT_NE(noisy_loss.out.find("undecided: fp32: val loss up by 0.0600"), std::string::npos)
      << noisy_loss.out;
}

TEST_F(Cli, AModeWithOneOfItsTrialsFailedKeepsItsPlaceAndCompareFlagsIt) {
  auto config = write_config(tiny_config()).string();
  const std::string args = " -q --modes fp16,fp32 --epochs 1 --repeats 2 --export-json ";
  ASSERT_EQ(run("--config " + config + args + (dir_ / "base.json").string()).exit_code, 0);
  auto result =
      run("--config " + config + args + (dir_ / "new.json").string() + " --inject-fault error:fp16:2:1");
  EXPECT_EQ(result.exit_code, 1) << result.err;
  auto report = nlohmann::json::parse(read_file(dir_ / "new.json"));
  ASSERT_EQ(report["trials"].size(), 4u);
  EXPECT_EQ(report["trials"][0]["status"], "failed");  // fp16, trial 1
  EXPECT_EQ(report["trials"][2]["status"], "ok");      // fp16, trial 2
  ASSERT_EQ(report["summary"].size(), 2u);
  // In run order, though fp16's first finished trial came after fp32's.
  EXPECT_EQ(report["summary"][0]["mode"], "fp16");
  EXPECT_EQ(report["summary"][0]["trials"], 1);
  const auto fidelity = result.out.substr(result.out.find("mode  seeds  val loss"));
  EXPECT_EQ(fidelity.find("fp16"), fidelity.find('\n') + 1) << fidelity;  // fp16's row comes first

  auto compared = run("compare " + (dir_ / "base.json").string() + " " + (dir_ / "new.json").string());
  EXPECT_EQ(compared.exit_code, 3) << compared.out << compared.err;
  EXPECT_NE(compared.out.find("regression: fp16: a trial in " + (dir_ / "new.json").string() +
                              " did not finish (failed: injected error at step 2)"),
            std::string::npos)
      << compared.out;
}

// A fidelity trial lost to an error fails the run as a timed one does, and its seed drops out of the
// pairing; a fault may name a fidelity seed's index past the repeats.
TEST_F(Cli, AFailedFidelityTrialFailsTheRunAndLeavesItsSeedOut) {
  auto result = run("--config " + write_config(tiny_config()).string() +
                    " -q --modes fp32,bf16 --epochs 1 --fidelity-seeds 3 --inject-fault error:bf16:2:2");
  EXPECT_EQ(result.exit_code, 1) << result.err;
  EXPECT_NE(result.err.find("error: bf16 fidelity seed 2 failed: injected error at step 2"),
            std::string::npos)
      << result.err;
  auto report = nlohmann::json::parse(read_file(run_folders().at(0) / "report.json"));
  ASSERT_EQ(report["fidelity_trials"].size(), 4u);
  EXPECT_EQ(report["fidelity_trials"][1]["status"], "failed");  // bf16, seed index 2
  EXPECT_EQ(report["fidelity_trials"][3]["status"], "ok");      // bf16, seed index 3
  EXPECT_EQ(report["summary"][1]["fidelity_detail"]["paired_seeds"], 2);
  EXPECT_EQ(report["summary"][0]["fidelity_detail"]["seeds"], 3);
  EXPECT_NE(result.out.find("warning: bf16 fidelity seed 2: failed: injected error"), std::string::npos)
      << result.out;
}

TEST_F(Cli, ASignalStopsAtAStepBoundaryAndKeepsEveryFinishedEpoch) {
  for (const std::string signal : {"sigint", "sigterm"}) {
    fs::remove_all(dir_ / "out");
    auto result = run("--config " + write_config(tiny_config()).string() +
                      " -q --modes fp32,fp16,bf16 --epochs 2 --repeats 2 " + "--inject-fault " + signal +
                      ":fp16:7 --export-csv " + (dir_ / "partial.csv").string());
    EXPECT_EQ(result.exit_code, 130) << result.err;
    auto report = nlohmann::json::parse(read_file(run_folders().at(0) / "report.json"));
    EXPECT_EQ(report["complete"], false);
    EXPECT_EQ(report["stopped_by"], signal == "sigint" ? "SIGINT" : "SIGTERM");
    ASSERT_EQ(report["trials"].size(), 2u);  // fp32 finished, fp16 stopped, nothing after
    EXPECT_EQ(report["trials"][0]["status"], "ok");
    EXPECT_EQ(report["trials"][0]["epochs"].size(), 2u);
    EXPECT_EQ(report["trials"][1]["status"], "interrupted");
    EXPECT_EQ(report["trials"][1]["epochs"].size(), 1u);  // epoch 2 was cut short: not reported
    EXPECT_NE(read_file(run_folders().at(0) / "report.md").find("Partial report"), std::string::npos);
    EXPECT_EQ(line_count(read_file(dir_ / "partial.csv")), 1u + 2 + 1);  // the exports are written too
  }
}

TEST_F(Cli, HostileConfigsExitTwoWithOneLineAndNeverCrash) {
  auto write_raw = [&](const std::string& name, const std::string& text) {
    auto path = dir_ / name;
    std::ofstream(path, std::ios::binary) << text;
    return path.string();
  };
  std::string deep_open(100000, '['), deep_closed = deep_open + std::string(100000, ']');
  std::string deep_object = "{\"name\": \"x\", \"data\": ";
  for (int i = 0; i < 50000; ++i) deep_object += "{\"a\": ";
  deep_object += "1" + std::string(50000, '}') + "}";
  auto big = tiny_config();
  big["padding"] = std::string(4 << 20, 'x');  // a 4 MB config with one unknown key
  auto config = tiny_config();
  config["train"]["epochs"] = 1e300;
  for (const auto& path :
       {write_raw("not-json.json", "name: x"), write_raw("array.json", "[1, 2]"),
        write_raw("deep-open.json", deep_open), write_raw("deep-closed.json", deep_closed),
        write_raw("deep-object.json", deep_object), write_raw("bytes.json", "{\"name\": \"\xff\xfe\"}"),
        write_raw("nan.json", "{\"name\": NaN}"),
        write_raw("overflow.json", "{\"name\": \"x\", \"seed\": 1e3111}"), write_raw("empty.json", ""),
        write_raw("huge.json", config.dump()), write_config(big, "big.json").string(), dir_.string()}) {
    auto result = run("--config " + path);
    EXPECT_EQ(result.exit_code, 2) << path << ": " << result.err;
    EXPECT_EQ(line_count(result.err), 1u) << path << ": " << result.err;
    EXPECT_EQ(result.err.rfind("config error: ", 0), 0u) << path << ": " << result.err;
  }
  EXPECT_FALSE(fs::exists(dir_ / "out"));
}

TEST_F(Cli, ADataFolderThatIsMissingOrBadIsAConfigErrorBeforeAnythingIsWritten) {
  auto config = tiny_config();
  config["data"] = {{"mnist", {{"dir", (dir_ / "mnist").string()}}}};
  auto missing = run("--config " + write_config(config).string() + " -q");
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_EQ(missing.err, "config error: /data/mnist/dir: missing data file " +
                             (dir_ / "mnist" / "train-images-idx3-ubyte").string() + "\n");
  EXPECT_TRUE(run_folders().empty());

  // Tiny but well-formed files train end to end; 8 training images are fewer than a batch of 16.
  using namespace ampbench::test_data;
  fs::create_directories(dir_ / "mnist");
  auto put = [&](const std::string& name, const std::vector<uint8_t>& bytes) {
    std::ofstream(dir_ / "mnist" / name, std::ios::binary)
        .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  };
  put("train-images-idx3-ubyte", idx_images(8, 28, 28));
  put("train-labels-idx1-ubyte", idx_labels({0, 1, 2, 3, 4, 5, 6, 7}));
  put("t10k-images-idx3-ubyte", idx_images(4, 28, 28));
  put("t10k-labels-idx1-ubyte", idx_labels({8, 9, 0, 1}));
  auto too_small = run("--config " + write_config(config).string() + " -q");
  EXPECT_EQ(too_small.exit_code, 2);
  EXPECT_EQ(too_small.err,
            "config error: /train/batch_size: is larger than the training set (8 samples in /data/mnist)\n");
  EXPECT_TRUE(run_folders().empty());
  config["train"]["batch_size"] = 4;
  config["train"]["warmup_steps"] = 0;
  auto ok = run("--config " + write_config(config).string() + " -q --modes fp32,bf16 --epochs 1");
  ASSERT_EQ(ok.exit_code, 0) << ok.err;
  auto report = nlohmann::json::parse(read_file(run_folders().at(0) / "report.json"));
  EXPECT_EQ(report["trials"][0]["epochs"][0]["timed_samples"], 8);
  EXPECT_EQ(report["config"]["data"]["mnist"]["dir"], (dir_ / "mnist").string());
}

TEST_F(Cli, PeakTflopsGivesAnMfuAndAnUnknownPeakGivesNone) {
  auto config = write_config(tiny_config()).string();
  auto with_peak = run("--config " + config + " -q --modes fp32,bf16 --epochs 1 --peak-tflops bf16=0.5");
  ASSERT_EQ(with_peak.exit_code, 0) << with_peak.err;
  auto report = nlohmann::json::parse(read_file(run_folders().at(0) / "report.json"));
  EXPECT_GT(report["train_flops_per_sample"].get<double>(), 0);
  const auto& fp32 = report["summary"][0];
  const auto& bf16 = report["summary"][1];
  EXPECT_TRUE(fp32["mfu"].is_null());  // no peak for fp32 on a CPU: empty, not 0
  EXPECT_GT(fp32["achieved_tflops"].get<double>(), 0);
  EXPECT_DOUBLE_EQ(bf16["mfu"].get<double>(), bf16["achieved_tflops"].get<double>() / 0.5);
  EXPECT_EQ(report["config"]["peak_tflops"], (nlohmann::json{{"bf16", 0.5}}));
  auto bad = run("--config " + config + " --peak-tflops fast");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("usage error: --peak-tflops: expected X or MODE=X,MODE=X"), std::string::npos)
      << bad.err;
}
