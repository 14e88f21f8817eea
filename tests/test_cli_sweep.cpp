// Sweeps end to end: every point a whole run in its own folder, the sweep report made of their reports,
// refusals before anything runs, and a stopped sweep's partial report.
#include <algorithm>
#include <functional>
#include <map>
#include <set>

#include <sys/stat.h>

#include "cli_fixture.h"
#include "measure/linear_fit.h"

namespace ampbench::testing {
namespace {

// The one sweep folder a test's run made under out/.
fs::path sweep_folder(const std::vector<fs::path>& folders) {
  EXPECT_EQ(folders.size(), 1u);
  return folders.empty() ? fs::path() : folders.front();
}

// The shipped mlp.json, as a user sweeps it (one epoch, to keep the suite short).
TEST_F(Cli, ASweepRunsEachPointIntoItsFolderAndReportsTheirOwnFigures) {
  auto doc = nlohmann::json::parse(read_file(fs::path(source_dir()) / "configs" / "mlp.json"));
  doc["output"] = {{"dir", (dir_ / "out").string()}};
  const auto config = write_config(doc).string();
  auto result = run("--config " + config +
                    " -q --sweep /train/batch_size=32,64,128 --epochs 1 --repeats 2 --modes fp32,bf16");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto folder = sweep_folder(run_folders());
  EXPECT_NE(result.out.find("sweep reports: " + folder.string()), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("bf16: best at /train/batch_size="), std::string::npos) << result.out;
  for (const char* file : {"sweep.json", "sweep.csv", "sweep.md"}) EXPECT_TRUE(fs::exists(folder / file));
  const auto sweep = read_json(folder / "sweep.json");
  EXPECT_EQ(sweep["complete"], true);
  ASSERT_EQ(sweep["points"].size(), 3u);
  for (int64_t i = 0; i < 3; ++i) {
    const auto& point = sweep["points"][i];
    const int64_t batch = 32 << i;
    EXPECT_EQ(point["settings"]["/train/batch_size"], batch);
    EXPECT_EQ(point["run_folder"], "point-" + std::to_string(i + 1));
    // The point's own run: its config took the value, and the sweep's figures are its report's.
    const auto report = read_json(folder / point["run_folder"].get<std::string>() / "report.json");
    EXPECT_EQ(report["config"]["train"]["batch_size"], batch);
    ASSERT_EQ(point["modes"].size(), report["summary"].size());
    for (size_t m = 0; m < report["summary"].size(); ++m) {
      const auto &mine = point["modes"][m], &theirs = report["summary"][m];
      SCOPED_TRACE(theirs["mode"].dump());
      EXPECT_EQ(mine["mode"], theirs["mode"]);
      EXPECT_EQ(mine["samples_per_second"], theirs["samples_per_second"]["median"]);
      EXPECT_EQ(mine["speedup_vs_fp32"], theirs["speedup_vs_fp32"]);
      EXPECT_EQ(mine["speedup_interval_95"], theirs["speedup_interval_95"]);
      EXPECT_EQ(mine["peak_bytes"], theirs["peak_bytes"]);
      EXPECT_EQ(mine["activation_bytes"], theirs["activation_bytes"]);
      EXPECT_EQ(mine["fidelity"], theirs["fidelity"]);
      EXPECT_FALSE(mine["samples_per_second_interval_95"].is_null());  // two trials give one
    }
  }
  EXPECT_EQ(line_count(read_file(folder / "sweep.csv")), 1u + 3 * 2);
  // The step-cost fit is the least-squares line through each point's median step time (batch / rate over
  // its timed trials).
  ASSERT_EQ(sweep["step_costs"].size(), 2u);
  for (const auto& cost : sweep["step_costs"]) {
    std::vector<double> batch, seconds;
    for (const auto& point : sweep["points"]) {
      const auto report = read_json(folder / point["run_folder"].get<std::string>() / "report.json");
      for (const auto& summary : report["summary"]) {
        if (summary["mode"] != cost["mode"]) continue;
        std::vector<double> steps;
        for (const auto& trial : summary["trials_compared"])
          steps.push_back(point["batch_size"].get<double>() / trial["samples_per_second"].get<double>());
        batch.push_back(point["batch_size"].get<double>());
        seconds.push_back(*measure::median(steps));
      }
    }
    const auto fit = measure::fit_line(batch, seconds);
    ASSERT_TRUE(fit);
    EXPECT_EQ(cost["samples"], 3);
    EXPECT_NEAR(cost["fixed_seconds"].get<double>(), fit->intercept, 1e-12);
    EXPECT_NEAR(cost["per_sample_seconds"].get<double>(), fit->slope, 1e-12);
  }
  EXPECT_NE(result.out.find("fp32: a fixed "), std::string::npos) << result.out;
}

// --sweep-order shuffled runs the points in an order drawn from the config's seed, the same each time, and
// sweep.json records the order they ran in; the grid's order is the default. Without a sweep it is refused.
TEST_F(Cli, ShuffledSweepPointsRunInTheSeedsOrderWhichTheReportRecords) {
  const auto config = write_config(tiny_config()).string();
  const std::string sweep = "--config " + config + " --modes fp32 --sweep /train/batch_size=8,16,32";
  auto order_of = [&](const std::string& extra) {
    const auto before = run_folders();
    const auto result = run(sweep + " " + extra);
    EXPECT_EQ(result.exit_code, 0) << result.err;
    std::vector<int64_t> logged;  // "sweep point K of 3 (...)", as the log says it ran each
    for (size_t at = result.err.find("sweep point "); at != std::string::npos;
         at = result.err.find("sweep point ", at + 1))
      logged.push_back(std::stoll(result.err.substr(at + 12)));
    fs::path folder;
    for (const auto& f : run_folders())
      if (std::find(before.begin(), before.end(), f) == before.end()) folder = f;
    const auto order = read_json(folder / "sweep.json")["run_order"].get<std::vector<int64_t>>();
    EXPECT_EQ(order, logged);
    return order;
  };
  EXPECT_EQ(order_of(""), (std::vector<int64_t>{1, 2, 3}));
  const auto shuffled = order_of("--sweep-order shuffled");
  EXPECT_EQ(std::set<int64_t>(shuffled.begin(), shuffled.end()), (std::set<int64_t>{1, 2, 3}));
  EXPECT_NE(shuffled, (std::vector<int64_t>{1, 2, 3}));  // the tiny config's seed, 0, draws [3, 1, 2]
  EXPECT_EQ(order_of("--sweep-order shuffled"), shuffled);
  const auto refused = run("--config " + config + " --sweep-order shuffled");
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_EQ(refused.err,
            "usage error: --sweep-order orders a sweep's points; give --sweep or a config with one\n");
}

TEST_F(Cli, TheConfigsSweepAndTheCommandLinesMakeAGrid) {
  auto doc = tiny_config();
  doc["sweep"] = {{{"key", "/train/batch_size"}, {"values", {8, 16}}}};
  auto result = run("--config " + write_config(doc).string() +
                    " -q --sweep /model/options/width=16,32 --epochs 1 --modes fp32");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto sweep = read_json(sweep_folder(run_folders()) / "sweep.json");
  ASSERT_EQ(sweep["points"].size(), 4u);
  EXPECT_EQ(sweep["points"][3]["settings"],
            (nlohmann::json{{"/train/batch_size", 16}, {"/model/options/width", 32}}));
  // A dry run checks and prints every point's config, and writes nothing.
  fs::remove_all(dir_ / "out");
  auto dry = run("--config " + write_config(doc).string() + " --dry-run --sweep /model/options/width=16,32");
  ASSERT_EQ(dry.exit_code, 0) << dry.err;
  EXPECT_EQ(nlohmann::json::parse(dry.out).size(), 4u);
  EXPECT_FALSE(fs::exists(dir_ / "out"));
}

TEST_F(Cli, ASweepIsRefusedBeforeAnyPointRunsWithTheLineThatSaysWhere) {
  const auto config = write_config(tiny_config()).string();
  const std::vector<std::pair<std::string, std::string>> cases{
      {"--sweep /train/batch_size=8,0",
       "config error: sweep point 2 of 2 (/train/batch_size=0): /train/batch_size: "},
      {"--sweep /train/batchsize=8",
       "sweep point 1 of 1 (/train/batchsize=8): /train/batchsize: unknown key"},
      {"--sweep /train/epochs=1,2 --epochs 1",
       "/train/epochs (from --epochs): is swept and set by --epochs too"},
      // A key inside one a flag sets is one rule with the same key.
      {"--sweep /precision/modes/0=fp32,bf16 --modes fp16",
       "/precision/modes/0 (from --modes): is swept and /precision/modes is set by --modes too: give one"},
      // An index past a list's end is named, not the null the list would be padded with.
      {"--sweep /data/synthetic/shape/9=3",
       "/data/synthetic/shape/9: the list at /data/synthetic/shape has 3 element(s): index 9 is past its end "
       "(give 0 to 2, or 3 to append)"},
      {"--sweep /data/synthetic/shape/99999999999999999999999=3",
       "index 99999999999999999999999 is past its end"},
      {"--sweep train/epochs=1", "the key must be a JSON pointer"},
      {"--sweep /train/epochs=1,1", "takes 1 twice"},
      {"--sweep /train/epochs=1 --sweep /train/epochs=2", "the key is swept twice"},
      {"--sweep /train/epochs=", "--sweep: expected KEY=V1,V2,..."},
      {"--sweep /train/epochs=1,,2", "--sweep: expected KEY=V1,V2,..."},
      {"--sweep =1", "--sweep: expected KEY=V1,V2,..."},
      {"--sweep /train/epochs=1 --export-json x.json", "usage error: --export-json, --export-csv and"},
      {"--sweep /train/epochs=1 --inject-fault nan:fp16:500", "usage error: --inject-fault"},
      {"--sweep /train/epochs=1 --shard 2/1", "--shard: expected K/N with 1 <= K <= N"},
      {"--sweep /train/epochs=1 --shard 0/3", "--shard: expected K/N with 1 <= K <= N"},
      {"--sweep /train/epochs=1 --shard 1/x", "--shard: expected K/N with 1 <= K <= N"},
      {"--shard 1/3", "usage error: --shard takes a share of a sweep's points"},
  };
  for (const auto& [args, expected] : cases) expect_refused(config, args, expected);
}

TEST_F(Cli, AStoppedSweepKeepsItsFinishedPointsAndSaysWhichIsNot) {
  const auto config = write_config(tiny_config()).string();
  // The planted stop fires in the last point.
  auto result = run("--config " + config + " -q --sweep /train/batch_size=8,16,32 --modes fp32 --repeats 1 " +
                    "--inject-fault sigint:fp32:2");
  EXPECT_EQ(result.exit_code, 130) << result.err;
  const auto folder = sweep_folder(run_folders());
  const auto sweep = read_json(folder / "sweep.json");
  EXPECT_EQ(sweep["complete"], false);
  EXPECT_EQ(sweep["not_finished"], nlohmann::json{3});
  EXPECT_EQ(sweep["points"][0]["status"], "finished");
  EXPECT_EQ(sweep["points"][1]["status"], "finished");
  EXPECT_EQ(sweep["points"][2]["status"], "partial");
  EXPECT_NE(result.out.find("partial sweep: not finished: 3 (/train/batch_size=32, partial)"),
            std::string::npos)
      << result.out;
  // A failed point stops it too, exit 1.
  fs::remove_all(dir_ / "out");
  auto failed = run("--config " + config + " -q --sweep /train/batch_size=8,16 --modes fp32 --repeats 1 " +
                    "--inject-fault error:fp32:2");
  EXPECT_EQ(failed.exit_code, 1) << failed.err;
  EXPECT_NE(failed.err.find("error: sweep point 2: fp32 trial 1 failed"), std::string::npos) << failed.err;
  EXPECT_EQ(read_json(sweep_folder(run_folders()) / "sweep.json")["not_finished"], nlohmann::json{2});
}

// Each point's config as its report.json records it, without the output folder, by point index.
std::map<int64_t, nlohmann::json> point_configs(const fs::path& sweep_folder) {
  std::map<int64_t, nlohmann::json> out;
  for (const auto& point : read_json(sweep_folder / "sweep.json")["points"]) {
    auto config = read_json(sweep_folder / point["run_folder"].get<std::string>() / "report.json")["config"];
    config.erase("output");
    out[point["index"].get<int64_t>()] = config;
  }
  return out;
}

class CliShards : public Cli {
 protected:
  // Runs share K of 3 of a three-point sweep into `where` (default shards/K), with `extra` options, and
  // returns its sweep folder.
  fs::path run_shard(int k, const std::string& extra = "", int expected_exit = 0, fs::path where = {}) {
    if (where.empty()) where = dir_ / "shards" / std::to_string(k);
    auto result = run("--config " + config_ + " -q --sweep /train/batch_size=8,16,32 --modes fp32 --shard " +
                      std::to_string(k) + "/3 --out " + where.string() + " " + extra);
    EXPECT_EQ(result.exit_code, expected_exit) << result.err;
    return fs::directory_iterator(where)->path();
  }
  Result merge(const std::vector<fs::path>& folders, const std::string& extra = "") {
    std::string args = "merge --out " + (dir_ / "merged").string() + (extra.empty() ? "" : " " + extra);
    for (const auto& folder : folders) args += " " + folder.string();
    return run(args);
  }
  void SetUp() override {
    Cli::SetUp();
    config_ = write_config(tiny_config()).string();
  }
  std::string config_;
};

TEST_F(CliShards, ThreeShardsMergedGiveThePointsAndConfigsOfTheWholeSweep) {
  const std::vector<fs::path> shards{run_shard(1), run_shard(2), run_shard(3)};
  const auto shard_two = read_json(shards[1] / "sweep.json");
  EXPECT_EQ(shard_two["shard"], (nlohmann::json{{"index", 2}, {"count", 3}}));
  EXPECT_EQ(shard_two["points"][0]["status"], "elsewhere");
  EXPECT_EQ(shard_two["points"][1]["status"], "finished");
  EXPECT_EQ(shard_two["complete"], true);
  EXPECT_FALSE(fs::exists(shards[1] / "point-1"));
  auto merged = merge(shards);
  ASSERT_EQ(merged.exit_code, 0) << merged.err;
  const auto merged_folder = fs::directory_iterator(dir_ / "merged")->path();
  EXPECT_NE(merged.out.find("sweep reports: " + merged_folder.string()), std::string::npos);
  // The same sweep in one process.
  ASSERT_EQ(run("--config " + config_ + " -q --sweep /train/batch_size=8,16,32 --modes fp32").exit_code, 0);
  const auto whole = sweep_folder(run_folders());
  const auto merged_json = read_json(merged_folder / "sweep.json"),
             whole_json = read_json(whole / "sweep.json");
  EXPECT_EQ(merged_json["complete"], true);
  EXPECT_TRUE(merged_json["shard"].is_null());
  EXPECT_EQ(merged_json["axes"], whole_json["axes"]);
  ASSERT_EQ(merged_json["points"].size(), 3u);
  for (size_t i = 0; i < 3; ++i)
    EXPECT_EQ(merged_json["points"][i]["settings"], whole_json["points"][i]["settings"]);
  EXPECT_EQ(point_configs(merged_folder), point_configs(whole));
  // Its figures are the shards' own.
  EXPECT_EQ(merged_json["points"][1]["modes"], shard_two["points"][1]["modes"]);
}

TEST_F(CliShards, MergeRefusesAForeignADuplicateAMissingAndAnUnfinishedPoint) {
  const auto one = run_shard(1), two = run_shard(2), three = run_shard(3);
  // Shard 3 of another experiment (one epoch, not two), and shard 3 stopped in its only point.
  const auto foreign = run_shard(3, "--epochs 1", 0, dir_ / "foreign");
  const auto stopped = run_shard(3, "--inject-fault sigint:fp32:2", 130, dir_ / "stopped");
  const std::vector<std::pair<std::vector<fs::path>, std::string>> cases{
      {{one, two, foreign},
       "its config differs from point 1 (/train/batch_size=8)'s at /train/epochs, beyond the swept keys"},
      {{one, two, two}, "point 2 (/train/batch_size=16) ran in " + two.string() + " too"},
      {{one, three}, "no folder ran point 2 (/train/batch_size=16): give every shard's folder"},
      {{one, two, stopped}, "point 3 (/train/batch_size=32) did not finish there"},
      {{one, two, dir_ / "shards"}, "sweep.json"},
  };
  for (const auto& [folders, expected] : cases) {
    SCOPED_TRACE(expected);
    auto result = merge(folders);
    EXPECT_EQ(result.exit_code, 2);
    EXPECT_NE(result.err.find("merge error: "), std::string::npos) << result.err;
    EXPECT_NE(result.err.find(expected), std::string::npos) << result.err;
    EXPECT_EQ(line_count(result.err), 1u) << result.err;
    EXPECT_FALSE(fs::exists(dir_ / "merged"));
  }
  // Something that is not a folder (a FIFO, a file) is named as such.
  ASSERT_EQ(mkfifo((dir_ / "fifo").c_str(), 0600), 0);
  for (const auto& not_folder : {dir_ / "fifo", one / "sweep.json"}) {
    auto result = merge({one, not_folder});
    EXPECT_EQ(result.exit_code, 2);
    EXPECT_NE(result.err.find(not_folder.string() + " is not a folder: give each shard's sweep folder"),
              std::string::npos)
        << result.err;
    EXPECT_EQ(line_count(result.err), 1u) << result.err;
  }
}

// A shard that ran on another build, machine or archive measured something else: refused, naming both,
// unless --force, which merges it and names the difference in every sweep report.
TEST_F(CliShards, MergeRefusesPointsOfAnotherBuildMachineOrArchiveUnlessForced) {
  const auto one = run_shard(1), two = run_shard(2), three = run_shard(3);
  const auto planted = three / "point-3" / "report.json";
  const auto original = read_json(planted);
  // Where each difference is planted in point 3's report, and the field and value the refusal names: a
  // reference model has no archive, so point 3 gets a whole one (as the schema has it).
  struct Plant {
    std::string at;
    nlohmann::json value;
    std::string field;
    nlohmann::json named;
  };
  const std::vector<Plant> plants{
      {"/environment/git_commit", "0123456789ab", "/environment/git_commit", "0123456789ab"},
      {"/environment/cpu_model", "Another CPU", "/environment/cpu_model", "Another CPU"},
      {"/environment/libtorch_version", "9.9.9", "/environment/libtorch_version", "9.9.9"},
      {"/model/archive",
       {{"fingerprint", "00ff00ff00ff00ff"}, {"torch_version", "2.13.0"}},
       "/model/archive/fingerprint",
       "00ff00ff00ff00ff"}};
  for (const auto& plant : plants) {
    SCOPED_TRACE(plant.field);
    auto report = original;
    report[nlohmann::json::json_pointer(plant.at)] = plant.value;
    std::ofstream(planted) << report.dump(2);
    const auto first = read_json(one / "point-1" / "report.json");
    const nlohmann::json::json_pointer field(plant.field);
    const auto theirs = first.contains(field) ? first[field] : nlohmann::json();
    const auto refused = merge({one, two, three});
    EXPECT_EQ(refused.exit_code, 2);
    EXPECT_EQ(refused.err, "merge error: " + (three / "point-3").string() +
                               ": point 3 (/train/batch_size=32) ran on another build, machine or archive: " +
                               plant.field + " is " + plant.named.dump() + " there, " + theirs.dump() +
                               " in point 1 (/train/batch_size=8); --force merges them\n");
    EXPECT_FALSE(fs::exists(dir_ / "merged"));
  }
  const auto forced = merge({one, two, three}, "--force");
  ASSERT_EQ(forced.exit_code, 0) << forced.err;
  const auto merged = fs::directory_iterator(dir_ / "merged")->path();
  const auto sweep = read_json(merged / "sweep.json");
  ASSERT_EQ(sweep["environment_differences"].size(), 1u);
  EXPECT_NE(sweep["environment_differences"][0].get<std::string>().find("/model/archive/fingerprint"),
            std::string::npos);
  EXPECT_NE(forced.out.find("merged with --force from another build, machine or archive: point 3"),
            std::string::npos)
      << forced.out;
  EXPECT_NE(read_file(merged / "sweep.md").find("merged with --force"), std::string::npos);
}

// The points are the grid the axes make, whatever a folder's sweep.json says: a point deleted from shard 1's
// list is still missing when no folder ran it; and each point's figures come from its own report.json, not
// from an edited sweep.json.
TEST_F(CliShards, MergeTakesThePointsFromTheAxesAndTheFiguresFromEachPointsReport) {
  const auto one = run_shard(1), two = run_shard(2), three = run_shard(3);
  auto listed = read_json(one / "sweep.json");
  listed["points"].erase(2);  // point 3, another shard's
  std::ofstream(one / "sweep.json") << listed.dump(2);
  const auto missing = merge({one, two});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("no folder ran point 3 (/train/batch_size=32)"), std::string::npos)
      << missing.err;
  EXPECT_FALSE(fs::exists(dir_ / "merged"));
  auto edited = read_json(two / "sweep.json");
  edited["points"][1]["modes"][0]["samples_per_second"] = 1e9;
  std::ofstream(two / "sweep.json") << edited.dump(2);
  const auto merged = merge({one, two, three});
  ASSERT_EQ(merged.exit_code, 0) << merged.err;
  const auto sweep = read_json(fs::directory_iterator(dir_ / "merged")->path() / "sweep.json");
  ASSERT_EQ(sweep["points"].size(), 3u);
  const auto report = read_json(two / "point-2" / "report.json");
  EXPECT_EQ(sweep["points"][1]["modes"][0]["samples_per_second"],
            report["summary"][0]["samples_per_second"]["median"]);
}

// Every field that differs is named, the cores and LibTorch's threads among them.
TEST_F(CliShards, MergeNamesEveryDifferenceOfAnotherMachineTheCoresAndThreadsAmongThem) {
  const auto one = run_shard(1), two = run_shard(2), three = run_shard(3);
  const auto planted = three / "point-3" / "report.json";
  auto report = read_json(planted);
  report["environment"]["cpu_cores"] = 112;
  report["environment"]["torch_threads"] = 56;
  std::ofstream(planted) << report.dump(2);
  const auto refused = merge({one, two, three});
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_NE(refused.err.find("/environment/cpu_cores is 112 there"), std::string::npos) << refused.err;
  EXPECT_NE(refused.err.find("/environment/torch_threads is 56 there"), std::string::npos) << refused.err;
  EXPECT_EQ(line_count(refused.err), 1u);
}

// A point's report must be that point's run, and its figures its own trials': each plant below is refused in
// one line naming the file, and nothing is made.
TEST_F(CliShards, MergeChecksEachPointsReportAgainstItsPointAndItsTrials) {
  const auto one = run_shard(1), two = run_shard(2), three = run_shard(3);
  const auto report_file = three / "point-3" / "report.json";
  const auto original = read_json(report_file);
  using Plant = std::function<void(nlohmann::json&)>;
  const std::vector<std::pair<Plant, std::string>> plants{
      {[](auto& r) {
         r["summary"][0]["samples_per_second"]["median"] =
             r["summary"][0]["samples_per_second"]["median"].template get<double>() * 1000;
       },
       "fp32's samples_per_second is not its trials'"},
      {[](auto& r) { r["summary"][0]["speedup_vs_fp32"] = 999; },
       "fp32's speedup_vs_fp32 is not its trials'"},
      {[](auto& r) { r["summary"][0]["peak_bytes"] = -7; },
       "does not match docs/report.schema.json: /summary/0/peak_bytes: -7 is below the minimum 0"},
      {[](auto& r) {
         r["summary"][0]["peak_bytes"] = r["summary"][0]["peak_bytes"].template get<int64_t>() + 1;
       },
       "fp32's peak_bytes is not its trials'"},
      {[](auto& r) { r["trials"][0]["memory"]["peak_bytes"] = -7; },
       "does not match docs/report.schema.json: /trials/0/memory/peak_bytes: -7 is below the minimum 0"},
      {[](auto& r) {
         r["trials"] = nlohmann::json::array();
         r["summary"] = nlohmann::json::array();
       },
       "its trials hold none of fp32, which its config runs"},
      {[](auto& r) { r["summary"] = nlohmann::json::array(); },
       "does not hold every mode with a finished trial"},
      {[](auto& r) { r["summary"][0]["samples_per_second"] = nullptr; },
       "/summary/0/samples_per_second: null is not of type \"object\""},
      {[](auto& r) { r["summary"][0]["samples_per_second"]["median"] = "fast"; },
       "/summary/0/samples_per_second/median: \"fast\" is not of type [\"number\",\"null\"]"},
      {[](auto& r) { r["config"]["train"]["batch_size"] = "32"; },
       "its config has /train/batch_size=\"32\", not point 3 (/train/batch_size=32)'s 32"},
  };
  for (const auto& [plant, expected] : plants) {
    SCOPED_TRACE(expected);
    auto planted = original;
    plant(planted);
    std::ofstream(report_file) << planted.dump(2);
    const auto refused = merge({one, two, three});
    EXPECT_EQ(refused.exit_code, 2);
    EXPECT_NE(refused.err.find(report_file.string()), std::string::npos) << refused.err;
    EXPECT_NE(refused.err.find(expected), std::string::npos) << refused.err;
    EXPECT_EQ(line_count(refused.err), 1u) << refused.err;
    EXPECT_FALSE(fs::exists(dir_ / "merged"));
  }
  std::ofstream(report_file) << original.dump(2);
  // A shard's sweep.json is held to its schema as well.
  const auto shard_file = three / "sweep.json";
  const auto listed = read_json(shard_file);
  auto edited = listed;
  edited["points"][2]["modes"][0]["peak_bytes"] = -7;
  std::ofstream(shard_file) << edited.dump(2);
  const auto bad_shard = merge({one, two, three});
  EXPECT_EQ(bad_shard.exit_code, 2);
  EXPECT_EQ(bad_shard.err, "merge error: " + shard_file.string() +
                               ": does not match docs/sweep.schema.json: /points/2/modes/0/peak_bytes: -7 is "
                               "below the minimum 0\n");
  EXPECT_FALSE(fs::exists(dir_ / "merged"));
  std::ofstream(shard_file) << listed.dump(2);
  // Point 3's folder replaced by a link to point 2's run: one run would count twice, at the wrong batch.
  fs::remove_all(three / "point-3");
  fs::create_directory_symlink(two / "point-2", three / "point-3");
  const auto linked = merge({one, two, three});
  EXPECT_EQ(linked.exit_code, 2);
  EXPECT_NE(linked.err.find("its config has /train/batch_size=16, not point 3 (/train/batch_size=32)'s 32"),
            std::string::npos)
      << linked.err;
  EXPECT_FALSE(fs::exists(dir_ / "merged"));
}

TEST_F(CliShards, AShardThatHoldsNoPointIsRefusedBeforeAnythingIsWritten) {
  const auto result =
      run("--config " + config_ + " -q --sweep /train/batch_size=8,16 --modes fp32 --shard 3/3");
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.err.find("--shard: 3/3 holds no point of a sweep of 2"), std::string::npos) << result.err;
  EXPECT_EQ(line_count(result.err), 1u);
  EXPECT_TRUE(run_folders().empty());
}

}  // namespace
}  // namespace ampbench::testing
