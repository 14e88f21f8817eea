// Every mode of the recipe table end to end: a tiny MLP swept and searched in that mode (beside fp32) writes
// run, sweep and max-batch reports their schemas accept (the Cli fixture validates every report a test
// leaves), each naming the mode and recording its row.
#include "amp/precision_mode.h"
#include "cli_fixture.h"
#include "mode_families.h"

namespace ampbench::amp {
// How gtest names a mode in a test's parameter.
inline void PrintTo(PrecisionMode mode, std::ostream* out) { *out << to_string(mode); }
}  // namespace ampbench::amp

namespace ampbench::testing {
namespace {

using amp::PrecisionMode;

class EveryModeCli : public Cli, public ::testing::WithParamInterface<PrecisionMode> {};

TEST_P(EveryModeCli, ATinyRunSweepAndMaxBatchWriteReportsTheirSchemasAccept) {
  const std::string mode(amp::to_string(GetParam()));
  const std::string modes = GetParam() == PrecisionMode::fp32 ? mode : "fp32," + mode;
  auto config = tiny_config();
  config["train"]["epochs"] = 1;
  const auto path = write_config(config).string();
  const auto sweep = run("--config " + path + " -q --modes " + modes + " --sweep /train/batch_size=8,16");
  ASSERT_EQ(sweep.exit_code, 0) << sweep.err;
  const auto search = run("--config " + path + " -q --modes " + modes + " --max-batch --memory-budget 1GiB");
  ASSERT_EQ(search.exit_code, 0) << search.err;
  int runs = 0, sweeps = 0, searches = 0;
  std::set<std::string> recorded;
  for (const auto& report : reports_under(dir_)) {
    const auto doc = read_json(report);
    const auto name = report.filename();
    if (name == "sweep.json") ++sweeps;
    if (name == "max_batch.json") ++searches;
    if (name != "report.json") continue;
    ++runs;
    // Each run records the rows of its modes (a max-batch run holds one mode, a sweep's point both).
    for (const auto& row : doc["modes"]) {
      const auto row_mode = amp::precision_mode_named(row["name"].get<std::string>());
      EXPECT_EQ(row, amp::recipe_json(amp::recipe_of(row_mode))) << report;
      recorded.insert(row["name"].get<std::string>());
    }
  }
  EXPECT_EQ(sweeps, 1);
  EXPECT_EQ(searches, 1);
  EXPECT_GE(runs, 3);  // the sweep's two points, and at least fp32's run at its largest batch
  EXPECT_TRUE(recorded.contains(mode));
}

std::string name_of(const ::testing::TestParamInfo<PrecisionMode>& info) {
  std::string name(amp::to_string(info.param));
  std::replace(name.begin(), name.end(), '-', '_');
  return name;
}

INSTANTIATE_TEST_SUITE_P(RecipeTable, EveryModeCli, ::testing::ValuesIn(amp::all_precision_modes()), name_of);

// Every float8 and float4 mode of the table with every layer kept in bf16 by the filter: none ran a layer in
// its format, so none reports as the format: no fidelity verdict, no figure for the dashboards, no
// emulation's warning, and a precision_not_applied warning naming its layers.
TEST_F(Cli, ALowBitModeThatRanNoLayerInItsFormatGivesNoVerdictOfIt) {
  const auto low_bit = low_bit_modes();
  auto config = tiny_config();
  config["precision"]["layer_filter"] = {{"keep_first", 100}};
  const auto bmf = dir_ / "bmf.json";
  const auto result = run("--config " + write_config(config).string() + " -q --epochs 1 --fidelity-seeds 2 " +
                          "--modes fp32," + mode_list(low_bit) + " --export-bmf " + bmf.string());
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto report = read_json(run_folders().at(0) / "report.json");
  std::set<std::string> not_applied, emulated;
  for (const auto& w : report["warnings"]) {
    if (w["kind"] == "emulated") emulated.insert(w["mode"].get<std::string>());
    if (w["kind"] != "precision_not_applied") continue;
    not_applied.insert(w["mode"].get<std::string>());
    EXPECT_NE(w["message"].get<std::string>().find("every product stayed in bf16: layers.0 (kept in bf16 by "
                                                   "precision.layer_filter)"),
              std::string::npos)
        << w["message"];
  }
  const auto names = mode_names(low_bit);
  EXPECT_EQ(not_applied, std::set<std::string>(names.begin(), names.end()));
  EXPECT_TRUE(emulated.empty());
  for (const auto& s : report["summary"]) {
    if (s["mode"] == "fp32") continue;
    EXPECT_TRUE(s["fidelity"].is_null()) << s["mode"] << ": " << s["fidelity"];
  }
  const auto dashboards = read_json(bmf);
  for (const auto& name : names) EXPECT_FALSE(dashboards.contains("tiny/" + name)) << dashboards.dump();
  EXPECT_FALSE(dashboards.empty());  // fp32's
}

// The shipped MLP config with every audited mode beside fp32 and bf16: each trains, has its lost-update
// audit, and is a row of report.md's pure bf16 table; and no other mode is audited.
TEST_F(Cli, TheAuditedModesRunTheShippedMlpBesideFp32AndBf16WithTheirAuditsAndTable) {
  const auto audited = audited_modes();
  ASSERT_FALSE(audited.empty());
  const auto result = run("--config " + source_dir() + "/configs/mlp.json -q --epochs 2 --out " +
                          (dir_ / "out").string() + " --modes fp32,bf16," + mode_list(audited));
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto folders = run_folders();
  ASSERT_EQ(folders.size(), 1u);
  const auto report = read_json(folders[0] / "report.json");
  std::set<std::string> with_audit;
  for (const auto& audit : report["update_audits"]) with_audit.insert(audit["mode"].get<std::string>());
  const auto names = mode_names(audited);
  EXPECT_EQ(with_audit, std::set<std::string>(names.begin(), names.end()));
  for (const auto& trial : report["trials"]) EXPECT_EQ(trial["status"], "ok") << trial["mode"];
  const auto markdown = read_file(folders[0] / "report.md");
  const auto table = markdown.find("**Pure bf16**");
  ASSERT_NE(table, std::string::npos);
  for (const auto& name : names)
    EXPECT_NE(markdown.find("| " + name + " |", table), std::string::npos) << name;
}

}  // namespace
}  // namespace ampbench::testing
