// --max-batch end to end: each mode's largest batch within a budget, each mode's run there, the report in
// every format, and the refusals before anything is written.
#include "cli_fixture.h"

namespace ampbench::testing {
namespace {

TEST_F(Cli, MaxBatchReportsEachModesLargestBatchAndItsRunThereInEveryFormat) {
  const auto config = write_config(tiny_config()).string();
  auto result =
      run("--config " + config + " -q --max-batch --memory-budget 1GiB --modes fp32,bf16 --repeats 2");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto folders = run_folders();
  ASSERT_EQ(folders.size(), 1u);
  const auto& folder = folders.front();
  EXPECT_NE(result.out.find("max-batch reports: " + folder.string()), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("largest batch per mode within 1.0 GiB (--memory-budget) on cpu"),
            std::string::npos)
      << result.out;
  // 64 training samples and an epoch of a warm-up step and a timed one: 32, which 1 GiB holds.
  EXPECT_NE(result.out.find("fp32: batch 32 fits, the largest the data allows"), std::string::npos)
      << result.out;
  EXPECT_NE(result.out.find("bf16 fits 1.00x fp32's batch (32 against 32) and runs it at "),
            std::string::npos)
      << result.out;
  const auto report = read_json(folder / "max_batch.json");
  EXPECT_EQ(report["complete"], true);
  EXPECT_EQ(report["batch_limit"], 32);
  ASSERT_EQ(report["modes"].size(), 2u);
  for (const auto& mode : report["modes"]) {
    SCOPED_TRACE(mode["mode"].dump());
    EXPECT_EQ(mode["largest_batch"], 32);
    EXPECT_EQ(mode["bounded_by"], "data");
    const auto run = read_json(folder / mode["run_folder"].get<std::string>() / "report.json");
    EXPECT_EQ(run["config"]["train"]["batch_size"], 32);
    EXPECT_EQ(mode["samples_per_second"], run["summary"][0]["samples_per_second"]["median"]);
    EXPECT_FALSE(mode["samples_per_second_interval_95"].is_null());  // two trials give one
  }
  EXPECT_EQ(line_count(read_file(folder / "max_batch.csv")), 1u + 2);
  EXPECT_NE(read_file(folder / "max_batch.md").find("| bf16 | 32 | data |"), std::string::npos);
}

TEST_F(Cli, MaxBatchIsRefusedBeforeAnythingIsWrittenWithTheLineThatSaysWhy) {
  const auto config = write_config(tiny_config()).string();
  const std::vector<std::pair<std::string, std::string>> cases{
      {"--max-batch", "--max-batch: on the CPU needs --memory-budget SIZE"},
      {"--memory-budget 1GiB", "usage error: --memory-budget is the budget of --max-batch"},
      {"--max-batch --memory-budget 1XB", "--memory-budget: expected a size such as 8GiB"},
      {"--max-batch --memory-budget 0GiB", "--memory-budget: expected a size such as 8GiB"},
      {"--max-batch --memory-budget -1GiB", "--memory-budget: expected a size such as 8GiB"},
      {"--max-batch --memory-budget GiB", "--memory-budget: expected a size such as 8GiB"},
      {"--max-batch --memory-budget 1e30TiB", "--memory-budget: expected a size such as 8GiB"},
      {"--max-batch --memory-budget 1KiB", "--memory-budget: 1.0 KiB cannot hold the run before it trains"},
      {"--max-batch --memory-budget 1GiB --sweep /train/epochs=1,2", "usage error: --max-batch searches"},
      {"--max-batch --memory-budget 1GiB --shard 1/2", "usage error: --max-batch searches"},
      {"--max-batch --memory-budget 1GiB --export-json x.json", "usage error: --export-json, --export-csv"},
      {"--max-batch --memory-budget 1GiB --inject-fault nan:fp32:1", "usage error: --inject-fault is for"},
      {"--max-batch --memory-budget 1GiB --modes fp32 --epochs 0", "--epochs"},
  };
  // A dry run refuses what the run refuses, with the same line.
  for (const auto& [args, expected] : cases) {
    expect_refused(config, args, expected);
    expect_refused(config, args + " --dry-run", expected);
  }
  auto dry = run("--config " + config + " --max-batch --memory-budget 1GiB --dry-run");
  EXPECT_EQ(dry.exit_code, 0) << dry.err;
  EXPECT_NO_THROW(nlohmann::json::parse(dry.out));
  EXPECT_TRUE(run_folders().empty());
}

}  // namespace
}  // namespace ampbench::testing
