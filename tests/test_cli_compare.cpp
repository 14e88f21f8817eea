// End to end: `ampbench compare` on the reports of real runs, as a CI job uses it.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_fixture.h"
#include "report/report.h"

namespace fs = std::filesystem;
using namespace ampbench::testing;

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
  worse["summary"][0]["trials_compared"][0]["samples_per_second"] =
      worse["summary"][0]["trials_compared"][0]["samples_per_second"].get<double>() / 2;
  worse["summary"][0]["peak_bytes"] = worse["summary"][0]["peak_bytes"].get<int64_t>() * 2;
  write_config(worse, "worse.json");
  auto base = (dir_ / "base.json").string(), next = (dir_ / "worse.json").string();

  EXPECT_EQ(run("compare " + base + " " + base + " --max-slowdown 0.1").exit_code, 0);
  // Memory is compared exactly; one trial a side cannot tell a slowdown from noise, and says so.
  auto regressed = run("compare " + base + " " + next + " --max-slowdown 0.1 --max-memory-increase 0.5");
  EXPECT_EQ(regressed.exit_code, 3);
  EXPECT_NE(regressed.out.find("unjudged: fp32: 50.0% slower, limit 10.0%: with one of the trials on a side, "
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
  EXPECT_NE(by_default.out.find(" unjudged "), std::string::npos) << by_default.out;
  auto slower_only = worse;
  slower_only["summary"][0]["peak_bytes"] =
      nlohmann::json::parse(read_file(base))["summary"][0]["peak_bytes"];
  write_config(slower_only, "slower.json");
  auto unjudged = run("compare " + base + " " + (dir_ / "slower.json").string());
  EXPECT_EQ(unjudged.exit_code, 5) << unjudged.out;  // no regression found, but nothing judged either
  EXPECT_NE(unjudged.out.find("unjudged: fp32: 50.0% slower, limit 7.0% (default)"), std::string::npos)
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
  // A truncated report: refused in one line that says where the JSON ends, as a config's error does.
  const auto text = read_file(base);
  std::ofstream(dir_ / "truncated.json") << text.substr(0, text.size() / 2);
  auto truncated = run("compare " + base + " " + (dir_ / "truncated.json").string());
  EXPECT_EQ(truncated.exit_code, 2);
  EXPECT_NE(truncated.err.find((dir_ / "truncated.json").string() + ": invalid JSON: parse error at line "),
            std::string::npos)
      << truncated.err;
  EXPECT_EQ(std::count(truncated.err.begin(), truncated.err.end(), '\n'), 1) << truncated.err;

  // A baseline stored by an older ampbench (schema version 1, without the fields added since) still
  // compares; a report from a newer one is refused, saying why.
  auto old_baseline = nlohmann::json::parse(read_file(dir_ / "base.json"));
  old_baseline["schema_version"] = 1;
  for (const char* added : {"stopped_by", "data_on_device", "train_flops_per_sample"})
    old_baseline.erase(added);
  for (auto& mode : old_baseline["summary"]) {
    for (const char* added :
         {"trials_compared", "static_bytes", "activation_bytes", "activation_ratio_vs_fp32", "val_perplexity",
          "achieved_tflops", "peak_tflops", "mfu", "fidelity", "grad_cosine_vs_fp32"})
      mode.erase(added);
  }
  auto old_path = write_config(old_baseline, "old.json").string();
  EXPECT_EQ(run("compare " + old_path + " " + base).exit_code, 0);
  auto newer = old_baseline;
  const auto newest = std::to_string(ampbench::report::kSchemaVersion);
  newer["schema_version"] = ampbench::report::kSchemaVersion + 1;
  auto too_new = run("compare " + base + " " + write_config(newer, "newer.json").string());
  EXPECT_EQ(too_new.exit_code, 2);
  EXPECT_EQ(too_new.err, "compare error: " + (dir_ / "newer.json").string() + ": schema version " +
                             std::to_string(ampbench::report::kSchemaVersion + 1) +
                             " is newer than this ampbench reads (1 to " + newest +
                             "): update ampbench to compare it\n");
}

// Planted figures in a real report of one mode: every epoch of trial i takes seconds[i] (and the summary's
// rate of the trial, over the epochs it names, follows), and the final val loss at each seed (the timed
// trials and the fidelity trials in order) is raised by raise[k].
nlohmann::json planted(nlohmann::json report, const std::vector<double>& seconds,
                       const std::vector<double>& raise = {}) {
  for (size_t i = 0; i < report["trials"].size(); ++i) {
    for (auto& epoch : report["trials"][i]["epochs"]) epoch["seconds"] = seconds.at(i);
    auto& compared = report["summary"][0]["trials_compared"][i];
    double samples = 0;
    for (const auto& e : compared["epochs"])
      samples += report["trials"][i]["epochs"][e.get<int>() - 1]["timed_samples"].get<double>();
    compared["samples_per_second"] = samples / (seconds.at(i) * double(compared["epochs"].size()));
  }
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
  EXPECT_NE(noisy.out.find("within_noise: fp32: 8.0% slower, limit 7.0% (default)"), std::string::npos)
      << noisy.out;
  EXPECT_NE(noisy.out.find("within the noise, so not judged a regression"), std::string::npos) << noisy.out;
  // 5 % slower: inside the limit.
  auto within = compare_with(planted(report, {1.05, 1.0605, 1.0395, 1.071, 1.029}));
  EXPECT_EQ(within.exit_code, 0) << within.out;
  EXPECT_EQ(within.out.find("regression:"), std::string::npos) << within.out;
  EXPECT_EQ(within.out.find("within_noise:"), std::string::npos) << within.out;
  EXPECT_EQ(within.out.find("unjudged:"), std::string::npos) << within.out;
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
  EXPECT_NE(noisy_loss.out.find("within_noise: fp32: val loss up by 0.0600"), std::string::npos)
      << noisy_loss.out;
}

// With repeats, one failed trial of a mode leaves the other's figures: the mode keeps its place in the
// tables, and compare calls the failed trial a regression.
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

// --export-json writes the comparison whose verdicts the console shows; stdout then carries only it.
TEST_F(Cli, CompareExportsJsonWithTheConsolesVerdicts) {
  write_fp32_base_report();
  const auto base = (dir_ / "base.json").string();
  auto worse = nlohmann::json::parse(read_file(base));
  worse["summary"][0]["peak_bytes"] = worse["summary"][0]["peak_bytes"].get<int64_t>() * 2;
  const auto next = write_config(worse, "worse.json").string();
  auto result = run("compare " + base + " " + next + " --export-json -");
  EXPECT_EQ(result.exit_code, 3) << result.err;
  const auto doc = nlohmann::json::parse(result.out);  // nothing but the JSON on stdout
  EXPECT_EQ(doc["verdict"], "regression");
  EXPECT_EQ(doc["base"], base);
  const auto& fp32 = doc["modes"][0];
  EXPECT_EQ(fp32["memory"]["verdict"], "regression");
  EXPECT_EQ(fp32["speed"]["verdict"], "ok");
  EXPECT_NE(result.err.find("regression: " + fp32["findings"][0]["text"].get<std::string>()),
            std::string::npos)
      << result.err;
  // Both files at once, each whole; two exports on stdout are refused before either is written.
  auto files = run("compare " + base + " " + next + " --export-json " + (dir_ / "c.json").string() +
                   " --markdown " + (dir_ / "c.md").string());
  EXPECT_EQ(files.exit_code, 3);
  EXPECT_EQ(nlohmann::json::parse(read_file(dir_ / "c.json")), doc);
  EXPECT_NE(read_file(dir_ / "c.md").find("- **regression**: fp32: peak memory 100.0% higher"),
            std::string::npos);
  auto both = run("compare " + base + " " + next + " --export-json - --markdown -");
  EXPECT_EQ(both.exit_code, 2);
  EXPECT_EQ(both.out, "");
  EXPECT_NE(both.err.find("output error: --markdown - and --export-json - both ask for stdout"),
            std::string::npos)
      << both.err;
}

// A limit that is not a finite number in its range would judge nothing ("nan" called an 11x change noise):
// refused in one line, exit 2.
TEST_F(Cli, CompareRefusesALimitThatIsNotAFiniteNumberInItsRange) {
  write_fp32_base_report();
  const auto base = (dir_ / "base.json").string();
  for (const std::string limit :
       {"--max-slowdown nan", "--max-slowdown inf", "--max-slowdown -0.1", "--max-memory-increase inf",
        "--max-memory-increase nan", "--max-val-loss-increase nan", "--max-val-loss-increase -1"}) {
    auto result = run("compare " + base + " " + base + " " + limit);
    EXPECT_EQ(result.exit_code, 2) << limit << ": " << result.err;
    EXPECT_NE(result.err.find("a finite number"), std::string::npos) << limit << ": " << result.err;
    EXPECT_EQ(std::count(result.err.begin(), result.err.end(), '\n'), 1) << limit << ": " << result.err;
  }
}
