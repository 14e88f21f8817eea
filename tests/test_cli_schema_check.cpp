// The schema check ampbench runs on what it reads back (util/json_schema.h) against Python's jsonschema, the
// reference: real reports of each kind, mutated a place at a time (tests/schema_mutations.py), must be
// refused by both or by neither.
#include <gtest/gtest.h>

#include "cli_fixture.h"
#include "util/embedded_schemas.h"
#include "util/json_schema.h"

namespace ampbench::testing {
namespace {

class SchemaCheck : public Cli {
 protected:
  // Mutants of `document` with jsonschema's verdicts, each checked by ampbench's schema check: the
  // disagreements are listed, and both verdicts must occur often enough to show the check decides.
  void expect_agreement(const fs::path& document, const std::string& schema_file, int count) {
    SCOPED_TRACE(schema_file);
    // Out of dir_: the mutants are not reports of this run, which TearDown validates.
    const auto mutants = fs::path(dir_.string() + "-mutants") / schema_file;
    const auto command = test_python() + " " + source_dir() + "/tests/schema_mutations.py " + source_dir() +
                         "/docs/" + schema_file + " " + document.string() + " " + mutants.string() + " " +
                         std::to_string(count) + " 7";
    ASSERT_EQ(std::system(command.c_str()), 0) << command;
    const util::JsonSchema schema(nlohmann::json::parse(util::embedded_schema(schema_file)));
    int valid = 0, disagreements = 0;
    for (const auto& verdict : read_json(mutants / "verdicts.json")) {
      const auto mutant = read_json(mutants / verdict["file"].get<std::string>());
      const auto found = schema.first_violation(mutant);
      const bool theirs = verdict["valid"].get<bool>();
      valid += theirs;
      if (found.has_value() == theirs && ++disagreements <= 10)
        ADD_FAILURE() << verdict["mutation"].get<std::string>() << ": jsonschema says "
                      << (theirs ? "valid" : "invalid") << ", ampbench " << found.value_or("valid");
    }
    fs::remove_all(mutants.parent_path());
    EXPECT_EQ(disagreements, 0);
    EXPECT_GE(valid, count / 20) << "too few valid mutants to show the check lets them pass";
    EXPECT_GE(count - valid, count / 2) << "too few invalid mutants to show the check refuses them";
  }
};

TEST_F(SchemaCheck, AgreesWithJsonschemaOnMutantsOfARunsASweepsAndAMaxBatchReport) {
  const auto config = write_config(tiny_config()).string();
  const auto run_report = dir_ / "run.json";
  ASSERT_EQ(run("--config " + config + " -q --modes fp32,fp16 --repeats 1 --epochs 1 --numerics --profile " +
                "--export-json " + run_report.string())
                .exit_code,
            0);
  expect_agreement(run_report, "report.schema.json", 600);
  ASSERT_EQ(
      run("--config " + config + " -q --modes fp32 --repeats 1 --epochs 1 --sweep /train/batch_size=8,16 " +
          "--out " + (dir_ / "sweep").string())
          .exit_code,
      0);
  expect_agreement(fs::directory_iterator(dir_ / "sweep")->path() / "sweep.json", "sweep.schema.json", 300);
  ASSERT_EQ(run("--config " + config + " -q --modes fp32 --repeats 1 --epochs 1 --max-batch " +
                "--memory-budget 1GiB --out " + (dir_ / "max").string())
                .exit_code,
            0);
  expect_agreement(fs::directory_iterator(dir_ / "max")->path() / "max_batch.json", "max_batch.schema.json",
                   300);
}

}  // namespace
}  // namespace ampbench::testing
