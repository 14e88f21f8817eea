// The dashboards' exports end to end: --export-bmf and --export-benchmark-action from a run and from a sweep
// (a benchmark per point), each file valid against the shape its format publishes (tests/formats), and
// their refusals before anything runs.
#include "cli_fixture.h"

namespace ampbench::testing {
namespace {

class CliExports : public Cli {
 protected:
  // jsonschema's verdict on `document` against tests/formats/`schema`: empty when valid.
  std::string violations(const fs::path& document, const std::string& schema) {
    const auto check = dir_ / "check.py";
    std::ofstream(check)
        << "import json, sys, jsonschema\n"
           "schema = json.load(open(sys.argv[2]))\n"
           "jsonschema.Draft7Validator.check_schema(schema)\n"
           "for e in jsonschema.Draft7Validator(schema).iter_errors(json.load(open(sys.argv[1]))):\n"
           "    print(list(e.absolute_path), e.message)\n";
    const auto formats = fs::path(source_dir()) / "tests" / "formats";
    auto result = run_binary(
        test_python(), check.string() + " '" + document.string() + "' '" + (formats / schema).string() + "'");
    return result.out +
           (result.exit_code == 0 ? "" : "exit " + std::to_string(result.exit_code) + result.err);
  }
};

TEST_F(CliExports, ARunWritesBothFormatsInTheirPublishedShape) {
  const auto config = write_config(tiny_config()).string();
  const auto bmf = dir_ / "bmf.json", action = dir_ / "action";
  auto result = run("--config " + config + " -q --repeats 2 --fidelity-seeds 2 --export-bmf " + bmf.string() +
                    " --export-benchmark-action " + action.string());
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(violations(bmf, "bmf.schema.json"), "");
  for (const char* file : {"customBiggerIsBetter.json", "customSmallerIsBetter.json"})
    EXPECT_EQ(violations(action / file, "benchmark_action.schema.json"), "") << file;

  // The figures are the run's own: its report's peak bytes and speed-up, a benchmark per mode.
  const auto doc = read_json(bmf);
  const auto report = read_json(run_folders().front() / "report.json");
  ASSERT_EQ(doc.size(), report["summary"].size());
  for (const auto& s : report["summary"]) {
    const auto& measures = doc.at("tiny/" + s["mode"].get<std::string>());
    EXPECT_EQ(measures.at("peak-bytes").at("value"), s["peak_bytes"].get<double>());
    if (s["mode"] != "fp32") {
      EXPECT_EQ(measures.at("speedup-vs-fp32").at("value"), s["speedup_vs_fp32"]);
      EXPECT_EQ(measures.at("speedup-vs-fp32").at("lower_value"), s["speedup_interval_95"][0]);
    }
  }
  const auto smaller = read_json(action / "customSmallerIsBetter.json");
  EXPECT_EQ(smaller[0]["name"], "tiny/fp32/epoch-seconds");
}

TEST_F(CliExports, ASweepWritesABenchmarkPerPointAndModeToStdout) {
  const auto config = write_config(tiny_config()).string();
  auto result = run("--config " + config +
                    " -q --epochs 1 --modes fp32,bf16 --sweep /train/batch_size=8,16 --export-bmf -");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  // stdout carries the export alone; the sweep's table goes to stderr.
  const auto doc = nlohmann::ordered_json::parse(result.out);
  std::vector<std::string> names;
  for (const auto& [name, measures] : doc.items()) names.push_back(name);
  EXPECT_EQ(names,
            (std::vector<std::string>{"tiny/train.batch_size=8/fp32", "tiny/train.batch_size=8/bf16",
                                      "tiny/train.batch_size=16/fp32", "tiny/train.batch_size=16/bf16"}));
  EXPECT_NE(result.err.find("sweep reports: "), std::string::npos) << result.err;
  std::ofstream(dir_ / "stdout.json") << result.out;
  EXPECT_EQ(violations(dir_ / "stdout.json", "bmf.schema.json"), "");
}

// Bencher Metric Format holds one benchmark or more: a run or sweep in which no mode finished a trial (exit
// 4) writes no file and prints nothing, never a {} its schema rejects.
TEST_F(CliExports, NoFinishedTrialWritesNoBmf) {
  const auto config = write_config(tiny_config()).string();
  const auto skipped = " -q --epochs 1 --modes tf32 --export-bmf ";  // tf32 is the GPU's: skipped here
  const auto file = dir_ / "b.json";
  auto to_file = run("--config " + config + skipped + file.string());
  EXPECT_EQ(to_file.exit_code, 4) << to_file.err;
  EXPECT_FALSE(fs::exists(file));
  for (const std::string sweep : {"", " --sweep /train/batch_size=8,16"}) {
    auto printed = run("--config " + config + skipped + "-" + sweep);
    EXPECT_EQ(printed.exit_code, 4) << sweep << ": " << printed.err;
    EXPECT_EQ(printed.out, "") << sweep;  // the console's table goes to stderr, as beside any stdout export
  }
}

TEST_F(CliExports, BadTargetsAreRefusedBeforeAnythingRuns) {
  const auto config = write_config(tiny_config()).string();
  std::ofstream(dir_ / "a-file") << "kept";
  expect_refused(config, "--export-benchmark-action " + (dir_ / "a-file").string(), "is not a folder");
  expect_refused(config,
                 "--sweep /train/batch_size=8,16 --export-benchmark-action " + (dir_ / "a-file").string(),
                 "is not a folder");
  expect_refused(config, "--export-benchmark-action -", "not - (stdout)");
  expect_refused(config, "--export-bmf " + (dir_ / "missing" / "b.json").string(), "cannot write");
  expect_refused(config, "--export-bmf - --export-json -", "only one export can go to stdout");
  expect_refused(config, "--sweep /train/batch_size=8,16 --export-json " + (dir_ / "r.json").string(),
                 "are for one run");
  expect_refused(config, "--export-bmf " + config, "is the config file");
  expect_refused(config, "--max-batch --export-bmf " + (dir_ / "b.json").string(),
                 "--export-bmf and --export-benchmark-action for a run or a sweep");
  EXPECT_EQ(read_file(dir_ / "a-file"), "kept");
}

}  // namespace
}  // namespace ampbench::testing
