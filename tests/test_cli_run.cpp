// End to end: a run: the reports it writes, its options, its exports, its gates.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_fixture.h"
#include "profile/profile_csv.h"
#include "report/report.h"

namespace fs = std::filesystem;
using namespace ampbench::testing;
using ampbench::report::kSchemaVersion;

TEST_F(Cli, RunsEveryModeAndWritesJsonCsvAndMarkdownReports) {
  auto result = run("--config " + write_config(tiny_config()).string() + " --quiet");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  auto folders = run_folders();
  ASSERT_EQ(folders.size(), 1u);

  auto report = nlohmann::json::parse(read_file(folders[0] / "report.json"));
  EXPECT_EQ(report["schema_version"], kSchemaVersion);
  EXPECT_EQ(report["complete"], true);
  EXPECT_EQ(report["config"]["name"], "tiny");
  EXPECT_EQ(report["model_parameters"], (48 * 16 + 16) + (16 * 4 + 4));  // 48 inputs, width 16, 4 classes
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
      "static_bytes,activation_peak_bytes,tf32,channels_last,detail,purpose,seed,cpu_share,run_queue_wait_"
      "share,"
      "involuntary_context_switches");
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

// The fp8 modes: each trial says what its linear layers did in float8 (the 16 x 16 -> 4 head cannot take
// at::_scaled_mm's shapes and stays in bf16), the console and Markdown say so too, and the CPU's caveat
// is a warning.
TEST_F(Cli, TheFp8ModesReportTheirLayersRecipesAndAmaxes) {
  auto result =
      run("--config " + write_config(tiny_config()).string() + " --modes fp32,bf16,fp8,fp8-rowwise");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(
      result.out.find("fp8 (tensorwise scaling): 1 of 2 linear layers in float8; left in bf16: layers.2 "
                      "(16 x 16 -> 4: not all multiples of 16)"),
      std::string::npos)
      << result.out;
  const auto folder = run_folders().at(0);
  auto report = nlohmann::json::parse(read_file(folder / "report.json"));
  std::map<std::string, std::string> recipes;
  for (const auto& trial : report["trials"]) {
    if (trial["mode"] == "fp32" || trial["mode"] == "bf16") {
      EXPECT_TRUE(trial["float8"].is_null());
      continue;
    }
    const auto& float8 = trial["float8"];
    recipes[trial["mode"]] = float8["recipe"];
    ASSERT_EQ(float8["layers"].size(), 2u) << float8.dump();
    const auto& first = float8["layers"][0];
    EXPECT_EQ(first["name"], "layers.0");
    EXPECT_EQ(first["float8_calls"], 8);  // 4 steps per epoch, 2 epochs
    EXPECT_EQ(first["bf16_calls"], 0);
    for (const char* amax : {"input_amax", "weight_amax", "grad_output_amax"}) {
      ASSERT_EQ(first[amax].size(), 2u) << amax;
      EXPECT_GT(first[amax][0].get<double>(), 0) << amax;
      EXPECT_LE(first[amax][0].get<double>(), first[amax][1].get<double>()) << amax;
    }
    const auto& head = float8["layers"][1];
    EXPECT_EQ(head["float8_calls"], 0);
    EXPECT_EQ(head["bf16_calls"], 8);
    EXPECT_TRUE(head["input_amax"].is_null());
  }
  EXPECT_EQ(recipes, (std::map<std::string, std::string>{{"fp8", "tensorwise"}, {"fp8-rowwise", "rowwise"}}));
  // Each fp8 mode against bf16, the mode it is built on: in the summary, and on the console to three digits.
  for (const auto& s : report["summary"]) {
    if (s["mode"] != "fp8" && s["mode"] != "fp8-rowwise") {
      EXPECT_TRUE(s["speedup_vs_bf16"].is_null()) << s["mode"];
      continue;
    }
    ASSERT_TRUE(s["speedup_vs_bf16"].is_number()) << s.dump();
    char expected[64];
    std::snprintf(expected, sizeof expected, "; %.3gx bf16's samples/s\n",
                  s["speedup_vs_bf16"].get<double>());
    EXPECT_NE(result.out.find(expected), std::string::npos) << expected << " in\n" << result.out;
  }
  size_t caveats = 0;
  for (const auto& w : report["warnings"]) caveats += w["kind"] == "no_float8_arithmetic";
  EXPECT_EQ(caveats, 2u) << report["warnings"].dump();
  EXPECT_NE(read_file(folder / "report.md").find("| fp8-rowwise | rowwise | layers.0 | 48 -> 16 | 8 | 0 |"),
            std::string::npos);
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
  // LibTorch would take 2 (the suite gives each test 1): the report's 1 is the option's doing.
  auto one = run("--config " + config + " -q --modes fp32 --epochs 1 --threads 1", "OMP_NUM_THREADS=2 ");
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
  EXPECT_EQ(csv.substr(0, csv.find('\n')), ampbench::profile::profile_csv_columns());
  EXPECT_NE(csv.find("bf16,step,"), std::string::npos);
  EXPECT_NE(read_file(folder / "report.md").find("**Where the time went**"), std::string::npos);
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
  EXPECT_EQ(nlohmann::json::parse(read_file(json_path))["schema_version"], kSchemaVersion);
  // stdout carries the Markdown alone; the console summary moved to stderr.
  EXPECT_EQ(result.out.rfind("### ampbench: tiny", 0), 0u) << result.out;
  EXPECT_NE(result.err.find("reports: "), std::string::npos);
}

TEST_F(Cli, AutoOnACudaBuildWithoutAGpuSaysItRunsOnTheCpu) {
  if (torch::cuda::is_available()) GTEST_SKIP() << "a CUDA GPU is visible";
  auto result = run("--config " + write_config(tiny_config()).string() + " --device auto --dry-run");
  EXPECT_EQ(result.exit_code, 0) << result.err;
  const bool said =
      result.err.find("no CUDA GPU is visible: device auto runs on the CPU") != std::string::npos;
  EXPECT_EQ(said, ampbench::measure::cuda_runtime_version().has_value()) << result.err;
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

// A link planted where an export's temporary file used to go (<export>.tmp) is never written through: the
// file it points to is untouched, and the export is written whole.
TEST_F(Cli, AnExportNeverWritesThroughALinkPlantedBesideIt) {
  const auto unrelated = dir_ / "unrelated.txt", exported = dir_ / "export.json";
  std::ofstream(unrelated) << "keep me";
  fs::create_symlink(unrelated, exported.string() + ".tmp");
  auto result = run("--config " + write_config(tiny_config()).string() + " -q --epochs 1 --modes fp32" +
                    " --export-json " + exported.string());
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(read_file(unrelated), "keep me");
  EXPECT_EQ(nlohmann::json::parse(read_file(exported))["schema_version"], kSchemaVersion);
}
