// End to end: faults during a run: each is marked on its trial, the others run, the exit code says it.
#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <set>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_fixture.h"
#include "measure/host_memory.h"

namespace fs = std::filesystem;
using namespace ampbench::testing;

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

// LibTorch's c10::Error and an exception of any other kind (oneDNN's dnnl::error when a CPU has no
// primitive for an op in fp16, say) alike.
TEST_F(Cli, ATrialLostToAnErrorOfAnyKindIsMarkedTheOthersRunAndTheRunExitsOne) {
  for (const std::string kind : {"error", "exception"}) {
    SCOPED_TRACE(kind);
    fs::remove_all(dir_ / "out");
    auto result = run("--config " + write_config(tiny_config()).string() +
                      " -q --modes fp32,fp16,bf16 --epochs 1 --inject-fault " + kind + ":fp16:2");
    EXPECT_EQ(result.exit_code, 1) << result.err;
    const auto detail = "injected " + kind + " at step 2";
    EXPECT_NE(result.err.find("error: fp16 trial 1 failed: " + detail + "\n"), std::string::npos)
        << result.err;
    auto report = nlohmann::json::parse(read_file(run_folders().at(0) / "report.json"));
    EXPECT_EQ(report["complete"], true);
    const auto& fp16 = report["trials"][1];
    EXPECT_EQ(fp16["status"], "failed");
    EXPECT_EQ(fp16["detail"], detail);
    EXPECT_EQ(report["trials"][0]["status"], "ok");
    EXPECT_EQ(report["trials"][2]["status"], "ok");  // bf16 ran after it
    EXPECT_EQ(report["summary"].size(), 2u);
    EXPECT_NE(result.out.find("warning: fp16 trial 1: failed: " + detail), std::string::npos)
        << result.out;  // the summary is printed all the same
  }
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
  for (const std::string signal : {"sigint", "sigterm", "sighup", "sigquit"}) {
    fs::remove_all(dir_ / "out");
    auto result = run("--config " + write_config(tiny_config()).string() +
                      " -q --modes fp32,fp16,bf16 --epochs 2 --repeats 2 " + "--inject-fault " + signal +
                      ":fp16:7 --export-csv " + (dir_ / "partial.csv").string());
    EXPECT_EQ(result.exit_code, 130) << result.err;
    auto report = nlohmann::json::parse(read_file(run_folders().at(0) / "report.json"));
    EXPECT_EQ(report["complete"], false);
    std::string name = signal;
    std::transform(name.begin(), name.end(), name.begin(), ::toupper);
    EXPECT_EQ(report["stopped_by"], name);
    ASSERT_EQ(report["trials"].size(), 2u);  // fp32 finished, fp16 stopped, nothing after
    EXPECT_EQ(report["trials"][0]["status"], "ok");
    EXPECT_EQ(report["trials"][0]["epochs"].size(), 2u);
    EXPECT_EQ(report["trials"][1]["status"], "interrupted");
    EXPECT_EQ(report["trials"][1]["epochs"].size(), 1u);  // epoch 2 was cut short: not reported
    EXPECT_NE(read_file(run_folders().at(0) / "report.md").find("Partial report"), std::string::npos);
    EXPECT_EQ(line_count(read_file(dir_ / "partial.csv")), 1u + 2 + 1);  // the exports are written too
  }
}

// An export that cannot reach stdout (here a full disk) is lost: a write failure (exit 1), for a run and
// for compare alike, never a success.
TEST_F(Cli, AnExportLostOnStdoutIsAWriteFailure) {
  const auto config = write_config(tiny_config()).string();
  auto run_export = run("--config " + config + " -q --epochs 1 --modes fp32 --export-json - >/dev/full");
  EXPECT_EQ(run_export.exit_code, 1) << run_export.err;
  EXPECT_NE(run_export.err.find("error: the export to stdout could not be written: No space left on device"),
            std::string::npos)
      << run_export.err;
  const auto base = (dir_ / "base.json").string();
  write_fp32_base_report();
  for (const std::string format : {"--markdown -", "--export-json -"}) {
    auto compared = run("compare " + base + " " + base + " " + format + " >/dev/full");
    EXPECT_EQ(compared.exit_code, 1) << format << ": " << compared.err;
    EXPECT_NE(compared.err.find("error: the export to stdout could not be written"), std::string::npos)
        << compared.err;
  }
}

// Whatever a command prints to stdout (a list, --help, a dry run's config, the console table) is its
// output: lost on a full disk it is a write failure, exit 1 and one line, never a success.
TEST_F(Cli, OutputLostOnStdoutIsAWriteFailureForEveryCommand) {
  const auto config = "--config " + write_config(tiny_config()).string() + " -q";
  for (const std::string& args : std::vector<std::string>{
           "--list-modes", "--list-modes json", "--help", "--version", config + " --dry-run",
           config + " --max-batch --memory-budget 1GiB --dry-run",
           config + " --sweep /train/batch_size=8,16 --dry-run", config + " --epochs 1 --modes fp32"}) {
    auto result = run(args + " >/dev/full");
    EXPECT_EQ(result.exit_code, 1) << args << ": " << result.err;
    EXPECT_NE(result.err.find("error: the output to stdout could not be written"), std::string::npos)
        << args << ": " << result.err;
    EXPECT_EQ(line_count(result.err), 1u) << args << ": " << result.err;
  }
}

// A reader that goes before the export reaches it (`| head -c0`): the write fails with EPIPE and says so
// (exit 1), instead of the process dying of SIGPIPE with no word.
TEST_F(Cli, AnExportIntoAPipeClosedEarlyIsAWriteFailureNotASignal) {
  const auto err = dir_ / "stderr.txt", status = dir_ / "status";
  const auto command = "{ " + ampbench::testing::ampbench_binary() + " --config " +
                       write_config(tiny_config()).string() +
                       " -q --epochs 1 --modes fp32 --export-bmf - 2>" + err.string() + "; echo $? >" +
                       status.string() + "; } | head -c0";
  ASSERT_EQ(std::system(command.c_str()), 0);
  EXPECT_EQ(read_file(status), "1\n") << read_file(err);
  EXPECT_NE(read_file(err).find("error: the export to stdout could not be written: Broken pipe"),
            std::string::npos)
      << read_file(err);
}

// A closed stdout (`>&-`): the export is lost, exit 1, and no report file takes stdout's descriptor.
TEST_F(Cli, AnExportToAClosedStdoutFailsAndNoReportFileTakesItsPlace) {
  auto result = run("--config " + write_config(tiny_config()).string() + " -q --epochs 1 --modes fp32" +
                    " --export-json - >&-");
  EXPECT_EQ(result.exit_code, 1) << result.err;
  EXPECT_NE(result.err.find("error: the export to stdout could not be written: stdout is closed"),
            std::string::npos)
      << result.err;
  const auto report = nlohmann::json::parse(read_file(run_folders().at(0) / "report.json"));  // intact
  EXPECT_EQ(report["trials"][0]["status"], "ok");
}

namespace {

std::set<std::string> warning_kinds(const nlohmann::json& report) {
  std::set<std::string> kinds;
  for (const auto& w : report["warnings"]) kinds.insert(w["kind"].get<std::string>());
  return kinds;
}

}  // namespace

// A planted slow mode (every bf16 step 250 ms longer) is told as slow, whatever the CPU's flags say; on a
// busy machine, where fp32's steps take tens of milliseconds, too.
TEST_F(Cli, APlantedSlowModeIsWarnedAboutWithItsFigure) {
  auto result = run("--config " + write_config(tiny_config()).string() +
                    " --modes fp32,bf16 --inject-fault slow:bf16:1");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  auto report = nlohmann::json::parse(read_file(run_folders().at(0) / "report.json"));
  EXPECT_EQ(warning_kinds(report).count("slow_mode"), 1u) << report["warnings"].dump();
  EXPECT_NE(result.out.find("warning: bf16: ran at "), std::string::npos) << result.out;
}

namespace {

// An MLP whose layers all have dimensions of 16s, so that the fp8 modes run every one in float8.
nlohmann::json float8_config(const fs::path& out) {
  return {{"name", "fp8"},
          {"model", {{"type", "mlp"}, {"options", {{"width", 32}, {"depth", 2}}}}},
          {"data",
           {{"synthetic", {{"train_samples", 256}, {"val_samples", 64}, {"shape", {16}}, {"classes", 16}}}}},
          {"train",
           {{"epochs", 2},
            {"batch_size", 16},
            {"warmup_steps", 1},
            {"optimizer", {{"type", "adamw"}, {"lr", 0.01}}}}},
          {"device", "cpu"},
          {"output", {{"dir", out.string()}}}};
}

}  // namespace

// float8 scales a million times too large saturate the products: the fp8 mode's fidelity fails, where
// the same run without the planted scale does not.
TEST_F(Cli, APlantedBrokenFloat8ScaleFailsFidelity) {
  const auto config = write_config(float8_config(dir_ / "out")).string();
  for (const std::string fault : {"", " --inject-fault fp8scale:fp8:1"}) {
    SCOPED_TRACE(fault);
    fs::remove_all(dir_ / "out");
    auto result = run("--config " + config + " -q --modes fp32,fp8 --fidelity-seeds 3" + fault);
    ASSERT_EQ(result.exit_code, 0) << result.err;
    auto report = nlohmann::json::parse(read_file(run_folders().at(0) / "report.json"));
    const auto& fp8 = report["summary"][1];
    ASSERT_EQ(fp8["mode"], "fp8");
    if (fault.empty()) {
      EXPECT_NE(fp8["fidelity"], "fail") << fp8.dump();
    } else {
      EXPECT_EQ(fp8["fidelity"], "fail") << fp8.dump();
    }
  }
}

// fp16 whose scale starts at 1e38 skips every step: it never trained, so its fidelity fails and a
// warning says why.
TEST_F(Cli, Fp16ThatNeverSteppedFailsFidelity) {
  auto config = tiny_config();
  config["precision"] = {{"modes", {"fp32", "fp16"}}, {"grad_scaler", {{"init_scale", 1e38}}}};
  auto result = run("--config " + write_config(config).string() + " -q");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  auto report = nlohmann::json::parse(read_file(run_folders().at(0) / "report.json"));
  const auto& fp16 = report["summary"][1];
  ASSERT_EQ(fp16["mode"], "fp16");
  EXPECT_EQ(fp16["fidelity"], "fail");
  EXPECT_EQ(fp16["fidelity_detail"]["seeds_never_stepped"], 1);
  EXPECT_EQ(warning_kinds(report).count("never_stepped"), 1u) << report["warnings"].dump();
}

// A busy loop on the same CPU as the run, on purpose: the epochs' run-queue wait shows it, and the
// contention warning gives the figure.
TEST_F(Cli, ACompetitorOnTheSameCpuIsMeasuredAndWarnedAbout) {
  if (std::system("taskset -c 0 true >/dev/null 2>&1") != 0) GTEST_SKIP() << "cannot pin to CPU 0 (taskset)";
  auto config = tiny_config();
  config["model"]["options"] = {{"width", 256}, {"depth", 2}};
  config["data"]["synthetic"]["train_samples"] = 4096;
  config["train"]["threads"] = 1;
  config["precision"] = {{"modes", {"fp32"}}};
  const auto pid_file = dir_ / "competitor.pid";
  // Bounded: it ends by itself after 120 s, and is killed as soon as the run ends.
  ASSERT_EQ(std::system(("taskset -c 0 sh -c 'end=$(($(date +%s) + 120)); while [ $(date +%s) -lt $end ]; do "
                         ":; done' >/dev/null 2>&1 & echo $! > " +
                         pid_file.string())
                            .c_str()),
            0);
  auto result = run("--config " + write_config(config).string() + " -q --epochs 3", "taskset -c 0 ");
  std::system(("kill $(cat " + pid_file.string() + ") 2>/dev/null").c_str());
  ASSERT_EQ(result.exit_code, 0) << result.err;
  auto report = nlohmann::json::parse(read_file(run_folders().at(0) / "report.json"));
  const auto& epoch = report["trials"][0]["epochs"][1];
  ASSERT_TRUE(epoch["cpu"]["run_queue_wait_share"].is_number()) << epoch["cpu"].dump();
  EXPECT_GT(epoch["cpu"]["run_queue_wait_share"].get<double>(), 0.2) << epoch["cpu"].dump();
  EXPECT_EQ(warning_kinds(report).count("contention"), 1u) << report["warnings"].dump();
}

// A model that malloc refuses to make (4.3 GB of weights and their 4.3 GB copy, the initial state, under an
// 8 GiB address-space limit, which the memory estimate does not see) ends the run before its first trial
// with the report written: exit 1, the error without LibTorch's source location.
TEST_F(Cli, AModelThatCannotBeMadeIsReportedWithTheReportWritten) {
#ifdef __SANITIZE_ADDRESS__
  GTEST_SKIP() << "AddressSanitizer's shadow memory does not fit under an address-space limit";
#endif
  if (torch::cuda::is_available()) GTEST_SKIP() << "a CUDA context does not fit under an address-space limit";
  auto config = tiny_config();
  // 1,074,675,716 parameters; without momentum the estimate is 12 bytes each (weights, gradients, the
  // initial state), which the host must hold for the run to get as far as making the model.
  config["model"]["options"] = {{"width", 16384}, {"depth", 5}};
  config["train"]["optimizer"] = {{"type", "sgd"}, {"momentum", 0.0}};
  const auto available = ampbench::measure::available_host_bytes();
  if (!available || double(*available) < 1.1 * 12 * 1'074'675'716.0)
    GTEST_SKIP() << "this host's available memory is below the run's estimate, which the run would refuse";
  auto result = run("--config " + write_config(config).string() + " -q", "ulimit -v 8388608; ");
  ASSERT_EQ(result.exit_code, 1) << result.err;
  EXPECT_NE(result.err.find("error: the model's initial state could not be made: DefaultCPUAllocator: can't "
                            "allocate memory"),
            std::string::npos)
      << result.err;
  EXPECT_EQ(result.err.find("enforce fail"), std::string::npos) << result.err;
  auto report = nlohmann::json::parse(read_file(run_folders().at(0) / "report.json"));
  EXPECT_TRUE(report["setup_failure"].is_string());
  EXPECT_TRUE(report["trials"].empty());
  EXPECT_EQ(warning_kinds(report).count("setup_failed"), 1u);
}
