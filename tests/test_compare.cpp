// compare on small report documents written here: every schema it reads, and each verdict, without
// training anything.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>

#include "app/exit_codes.h"
#include "build_paths.h"
#include "compare/compare.h"
#include "compare/compare_render.h"
#include "compare/run_compare.h"
#include "report/report.h"

namespace {

using ampbench::compare::ChangeVerdict;
using ampbench::compare::compare_reports;
using ampbench::compare::Comparison;
using ampbench::report::kSchemaVersion;
using nlohmann::json;

// A mode of a fixture report: one timed trial per rate, each with two epochs (the first, left out of every
// speed figure, at a rate of its own), and its final val loss per seed.
struct ModeSpec {
  std::string mode;
  std::vector<double> rates;
  int64_t peak_bytes = 1 << 20;
  std::vector<double> val_loss_by_seed{1.0};  // seed 0 is the timed trials'; 1, 2, ... fidelity seeds
};

double sorted_median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const auto n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

json trial_json(int schema, const std::string& mode, int64_t trial, double rate, double val_loss) {
  json t = {{"mode", mode},
            {"trial", trial},
            {"status", "ok"},
            {"epochs",
             {{{"epoch", 1}, {"seconds", 1.0}, {"timed_samples", 1}, {"val_loss", val_loss}},
              {{"epoch", 2}, {"seconds", 2.0}, {"timed_samples", 2 * rate}, {"val_loss", val_loss}}}}};
  if (schema >= 5) t["seed"] = uint64_t{0};  // the run's seed; reports before version 5 name none
  return t;
}

// A report.json of schema version `schema` as ampbench writes it, cut down to what compare reads.
json report_doc(int schema, const std::vector<ModeSpec>& modes, const std::string& config_hash = "00ab") {
  json doc = {{"schema_version", schema},
              {"complete", true},
              {"environment", {{"config_hash", config_hash}}},
              {"config", {{"model", {{"type", "mlp"}}}, {"precision", {{"fidelity_tolerance", 0.05}}}}},
              {"trials", json::array()},
              {"summary", json::array()}};
  if (schema >= 5) doc["fidelity_trials"] = json::array();
  for (const auto& m : modes) {
    json compared = json::array();
    for (size_t i = 0; i < m.rates.size(); ++i) {
      doc["trials"].push_back(trial_json(schema, m.mode, int64_t(i + 1), m.rates[i], m.val_loss_by_seed[0]));
      compared.push_back({{"trial", i + 1}, {"epochs", {2}}, {"samples_per_second", m.rates[i]}});
    }
    for (size_t seed = 1; seed < m.val_loss_by_seed.size() && schema >= 5; ++seed) {
      auto t = trial_json(schema, m.mode, int64_t(seed + 1), 1.0, m.val_loss_by_seed[seed]);
      t["seed"] = uint64_t(seed);
      doc["fidelity_trials"].push_back(t);
    }
    json entry = {{"mode", m.mode},
                  {"samples_per_second", {{"median", sorted_median(m.rates)}}},
                  {"peak_bytes", m.peak_bytes},
                  {"val_loss", m.val_loss_by_seed[0]}};
    if (schema >= 7) entry["trials_compared"] = compared;
    doc["summary"].push_back(entry);
  }
  return doc;
}

Comparison compare(const json& base, const json& next) { return compare_reports(base, next, {}, false); }

const ampbench::compare::ModeComparison& mode_of(const Comparison& c, const std::string& mode) {
  return *std::find_if(c.modes.begin(), c.modes.end(), [&](const auto& m) { return m.mode == mode; });
}

int exit_code(const Comparison& c) {
  ampbench::compare::CompareOutcome outcome;
  outcome.comparison = c;
  return ampbench::app::exit_code_for(outcome);
}

const std::vector<double> kSteady{100, 101, 99, 100, 102};

}  // namespace

TEST(Compare, EveryReportSchemaFromOneToTheCurrentComparesOnItsTrialsRates) {
  for (int schema = 1; schema <= kSchemaVersion; ++schema) {
    SCOPED_TRACE("schema " + std::to_string(schema));
    const auto base = report_doc(schema, {{"fp32", kSteady}, {"bf16", {200, 202, 198, 200, 204}}});
    const auto c = compare(base, base);
    EXPECT_EQ(c.verdict(), ChangeVerdict::ok);
    ASSERT_EQ(c.modes.size(), 2u);
    EXPECT_EQ(c.modes[1].speed.base, 200);  // the median trial rate over epoch 2 only
    EXPECT_EQ(c.modes[1].speed.base_samples, 5);
    EXPECT_TRUE(c.modes[1].speed.interval);
    EXPECT_EQ(exit_code(c), 0);
  }
}

TEST(Compare, FromVersionSevenTheRatesAreTheSummarysNotDerivedAgain) {
  auto base = report_doc(kSchemaVersion, {{"fp32", kSteady}});
  auto next = base;
  // The epochs say nothing changed; the figures the summary wrote say every trial ran at half the rate.
  for (auto& t : next["summary"][0]["trials_compared"])
    t["samples_per_second"] = t["samples_per_second"].get<double>() / 2;
  const auto c = compare(base, next);
  EXPECT_NEAR(mode_of(c, "fp32").speed.change, 0.5, 1e-12);
  EXPECT_EQ(mode_of(c, "fp32").speed.verdict, ChangeVerdict::regression);
  next["summary"][0]["trials_compared"][0].erase("samples_per_second");
  EXPECT_THROW(compare(base, next), ampbench::util::InputError);
}

TEST(Compare, AClearSlowdownBeyondTheNoiseIsARegressionAndExitsThree) {
  const auto c = compare(report_doc(kSchemaVersion, {{"fp32", kSteady}}),
                         report_doc(kSchemaVersion, {{"fp32", {50, 51, 49, 50, 52}}}));
  const auto& m = mode_of(c, "fp32");
  EXPECT_EQ(m.speed.verdict, ChangeVerdict::regression);
  ASSERT_TRUE(m.speed.interval);
  EXPECT_GT(m.speed.interval->low, 0);
  ASSERT_EQ(m.findings.size(), 1u);
  EXPECT_EQ(m.findings[0].text.rfind("fp32: 50.0% slower, limit 7.0% (default) (95% CI", 0), 0u)
      << m.findings[0].text;
  EXPECT_EQ(c.verdict(), ChangeVerdict::regression);
  EXPECT_EQ(exit_code(c), 3);
}

// A block-scaled mode's speed is judged where its products ran on the GPU's kernels (summary[].emulated
// false), never where either side emulated them; a report before schema 19 has no such field, and every
// block-scaled mode was emulated then.
TEST(Compare, AnEmulatedModesSpeedIsNeverJudgedAndOneOnTheKernelsIs) {
  auto with_emulated = [](json doc, bool emulated) {
    doc["summary"][0]["emulated"] = emulated;
    return doc;
  };
  const auto base = report_doc(kSchemaVersion, {{"mxfp8", kSteady}});
  const auto slower = report_doc(kSchemaVersion, {{"mxfp8", {50, 51, 49, 50, 52}}});
  const auto on_kernels = compare(with_emulated(base, false), with_emulated(slower, false));
  EXPECT_EQ(mode_of(on_kernels, "mxfp8").speed.verdict, ChangeVerdict::regression);
  const auto one_emulated = compare(with_emulated(base, false), with_emulated(slower, true));
  EXPECT_EQ(mode_of(one_emulated, "mxfp8").speed.verdict, ChangeVerdict::emulated);
  EXPECT_EQ(exit_code(one_emulated), 0);
  const auto before_19 = compare(report_doc(18, {{"mxfp8", kSteady}}), report_doc(18, {{"mxfp8", {50, 51}}}));
  EXPECT_EQ(mode_of(before_19, "mxfp8").speed.verdict, ChangeVerdict::emulated);
  const auto fp32 = compare(report_doc(18, {{"fp32", kSteady}}), report_doc(18, {{"fp32", {50, 51, 49}}}));
  EXPECT_EQ(mode_of(fp32, "fp32").speed.verdict, ChangeVerdict::regression);
}

TEST(Compare, ASlowdownTheSpreadCannotTellFromNoiseIsWithinNoiseAndExitsZero) {
  const auto c = compare(report_doc(kSchemaVersion, {{"fp32", {100, 60, 140, 80, 120}}}),
                         report_doc(kSchemaVersion, {{"fp32", {90, 50, 135, 70, 115}}}));
  const auto& m = mode_of(c, "fp32");
  EXPECT_GT(m.speed.change, 0.07);
  EXPECT_EQ(m.speed.verdict, ChangeVerdict::within_noise);
  ASSERT_TRUE(m.speed.interval);
  EXPECT_LE(m.speed.interval->low, 0);
  EXPECT_EQ(c.verdict(), ChangeVerdict::within_noise);
  EXPECT_EQ(exit_code(c), 0);
}

TEST(Compare, OneTrialASideCannotBeJudgedAndExitsFive) {
  const auto c =
      compare(report_doc(kSchemaVersion, {{"fp32", {100}}}), report_doc(kSchemaVersion, {{"fp32", {50}}}));
  const auto& m = mode_of(c, "fp32");
  EXPECT_EQ(m.speed.verdict, ChangeVerdict::unjudged);
  EXPECT_FALSE(m.speed.interval);
  ASSERT_EQ(m.findings.size(), 1u);
  EXPECT_NE(m.findings[0].text.find("noise cannot be told from change"), std::string::npos);
  EXPECT_EQ(exit_code(c), 5);
}

TEST(Compare, PeakMemoryIsComparedExactly) {
  ModeSpec bigger{"fp32", {100}, (1 << 20) * 2};
  const auto c = compare(report_doc(kSchemaVersion, {{"fp32", {100}}}), report_doc(kSchemaVersion, {bigger}));
  EXPECT_EQ(mode_of(c, "fp32").memory.verdict, ChangeVerdict::regression);
  EXPECT_EQ(mode_of(c, "fp32").findings[0].text, "fp32: peak memory 100.0% higher, limit 7.0% (default)");
  // A regression outranks an unjudged change: exit 3.
  EXPECT_EQ(exit_code(compare(report_doc(kSchemaVersion, {{"fp32", {100}}}),
                              report_doc(kSchemaVersion, {{"fp32", {50}, (1 << 20) * 2}}))),
            3);
}

TEST(Compare, ValLossIsPairedBySeed) {
  ModeSpec base{"fp32", kSteady, 1 << 20, {1.0, 1.2, 0.9, 1.1}};
  ModeSpec worse{"fp32", kSteady, 1 << 20, {1.1, 1.31, 0.99, 1.2}};  // +0.1 at every seed
  const auto c = compare(report_doc(kSchemaVersion, {base}), report_doc(kSchemaVersion, {worse}));
  const auto& loss = mode_of(c, "fp32").val_loss;
  EXPECT_EQ(loss.base_samples, 4);
  EXPECT_NEAR(loss.change, 0.1, 1e-9);
  EXPECT_EQ(loss.verdict, ChangeVerdict::regression);
  EXPECT_EQ(loss.limit.value, 0.05);  // BASE's fidelity tolerance, by default
  EXPECT_TRUE(loss.limit.is_default);
}

TEST(Compare, AModeWithoutFiguresInNewIsARegressionThatSaysWhy) {
  auto base = report_doc(kSchemaVersion, {{"fp32", kSteady}, {"bf16", kSteady}});
  auto next = report_doc(kSchemaVersion, {{"fp32", kSteady}});
  next["trials"].push_back(
      {{"mode", "bf16"}, {"trial", 1}, {"status", "oom"}, {"detail", "out of memory at batch size 16"}});
  const auto c = compare_reports(base, next, {}, false, "base.json", "new.json");
  const auto& m = mode_of(c, "bf16");
  ASSERT_TRUE(m.unfinished_in_new);
  EXPECT_EQ(m.findings[0].text, "bf16: no figures in new.json (oom: out of memory at batch size 16)");
  EXPECT_EQ(exit_code(c), 3);
  // A mode NEW did not run at all.
  EXPECT_EQ(mode_of(compare(base, report_doc(kSchemaVersion, {{"fp32", kSteady}})), "bf16").unfinished_in_new,
            "not run");
}

TEST(Compare, ATrialThatDidNotFinishInNewIsARegressionOfItsOwn) {
  auto base = report_doc(kSchemaVersion, {{"fp32", kSteady}});
  auto next = base;
  next["trials"].push_back(
      {{"mode", "fp32"}, {"trial", 6}, {"status", "diverged"}, {"detail", "NaN at step 3"}});
  const auto c = compare_reports(base, next, {}, false, "base.json", "new.json");
  EXPECT_EQ(mode_of(c, "fp32").findings[0].text,
            "fp32: a trial in new.json did not finish (diverged: NaN at step 3)");
  EXPECT_EQ(c.verdict(), ChangeVerdict::regression);
}

TEST(Compare, APartialNewIsARegression) {
  auto base = report_doc(kSchemaVersion, {{"fp32", kSteady}});
  auto next = base;
  next["complete"] = false;
  next["stopped_by"] = "SIGINT";
  const auto c = compare_reports(base, next, {}, false, "base.json", "new.json");
  EXPECT_EQ(c.new_incomplete, "new.json is a partial report: its run was stopped by SIGINT");
  EXPECT_EQ(exit_code(c), 3);
}

TEST(Compare, RefusesReportsOfDifferentExperimentsUnlessForcedAndNewerSchemas) {
  const auto base = report_doc(kSchemaVersion, {{"fp32", kSteady}});
  const auto other = report_doc(kSchemaVersion, {{"fp32", kSteady}}, "ffff");
  EXPECT_THROW(compare(base, other), ampbench::util::InputError);
  EXPECT_EQ(compare_reports(base, other, {}, true).verdict(), ChangeVerdict::ok);
  auto newer = base;
  newer["schema_version"] = kSchemaVersion + 1;
  try {
    compare_reports(base, newer, {}, false, "base.json", "newer.json");
    FAIL() << "a newer schema compared";
  } catch (const ampbench::util::InputError& e) {
    EXPECT_EQ(std::string(e.what()), "newer.json: schema version " + std::to_string(kSchemaVersion + 1) +
                                         " is newer than this ampbench reads (1 to " +
                                         std::to_string(kSchemaVersion) + "): update ampbench to compare it");
  }
  EXPECT_THROW(compare(base, json{{"model", "not a report"}}), ampbench::util::InputError);
}

TEST(Compare, EveryFormatNamesEachVerdictAlike) {
  auto base =
      report_doc(kSchemaVersion, {{"fp32", kSteady}, {"bf16", {100}}, {"fp16", {100, 60, 140, 80, 120}}});
  auto next = report_doc(kSchemaVersion,
                         {{"fp32", {50, 51, 49, 50, 52}}, {"bf16", {50}}, {"fp16", {90, 50, 135, 70, 115}}});
  const auto c = compare(base, next);
  const auto doc = ampbench::compare::comparison_to_json(c);
  const auto console = ampbench::compare::comparison_to_console(c);
  const auto markdown = ampbench::compare::comparison_to_markdown(c);
  EXPECT_EQ(doc["verdict"], "regression");
  EXPECT_EQ(doc["compare_schema_version"], ampbench::compare::kCompareSchemaVersion);
  const std::map<std::string, std::string> expected{
      {"fp32", "regression"}, {"bf16", "unjudged"}, {"fp16", "within_noise"}};
  for (const auto& m : doc["modes"]) {
    const auto mode = m["mode"].get<std::string>();
    const auto verdict = m["speed"]["verdict"].get<std::string>();
    EXPECT_EQ(verdict, expected.at(mode));
    // The console's row for the mode has the same word in its speed column, and so does its finding line.
    const auto row = console.substr(console.find("\n" + mode + " ") + 1);
    EXPECT_NE(row.substr(0, row.find('\n')).find(" " + verdict + " "), std::string::npos) << console;
    EXPECT_NE(console.find("\n" + verdict + ": " + mode + ": "), std::string::npos) << console;
    EXPECT_NE(markdown.find("- **" + verdict + "**: " + mode + ": "), std::string::npos) << markdown;
    EXPECT_EQ(m["findings"][0]["verdict"], verdict);
  }
  for (const char* old : {"REGRESSION", "UNJUDGED", "undecided"}) {
    EXPECT_EQ(console.find(old), std::string::npos) << old << " in\n" << console;
  }
}

// A run that measured nothing (every mode diverged) wrote an ampbench report all the same: as NEW each of
// BASE's modes lacks its figures there, a regression that says why; as BASE it is no baseline, and says so.
TEST(Compare, AReportThatMeasuredNothingIsARegressionAsNewAndNoBaseline) {
  const auto base = report_doc(kSchemaVersion, {{"fp32", kSteady}});
  auto nothing = base;
  nothing["summary"] = json::array();
  for (auto& trial : nothing["trials"]) trial["status"] = "diverged";
  const auto c = compare_reports(base, nothing, {}, false, "base.json", "new.json");
  ASSERT_EQ(c.modes.size(), 1u);
  EXPECT_EQ(c.modes[0].unfinished_in_new, "diverged");
  EXPECT_EQ(c.verdict(), ChangeVerdict::regression);
  try {
    compare_reports(nothing, base, {}, false, "base.json", "new.json");
    ADD_FAILURE() << "a baseline that measured nothing was compared";
  } catch (const ampbench::util::InputError& e) {
    EXPECT_EQ(
        std::string(e.what()),
        "base.json: is the report of a run that measured nothing (no mode finished a timed trial: see its "
        "warnings), so it is no baseline to compare with");
  }
}

// A tampered or degenerate figure (a zero rate, time or peak, a count whose sums overflow, a negative one)
// would make any change look like none: the report is refused, naming the figure.
TEST(Compare, RefusesAFigureOutOfRangeNamingIt) {
  struct Plant {
    int schema;
    std::function<void(json&)> plant;
    std::string path;
  };
  const std::vector<Plant> plants{
      {kSchemaVersion, [](json& d) { d["summary"][0]["samples_per_second"]["median"] = 0; },
       "/summary/0/samples_per_second/median"},
      {kSchemaVersion, [](json& d) { d["summary"][0]["peak_bytes"] = 0; }, "/summary/0/peak_bytes"},
      {kSchemaVersion, [](json& d) { d["summary"][0]["val_loss"] = -1; }, "/summary/0/val_loss"},
      {kSchemaVersion, [](json& d) { d["summary"][0]["trials_compared"][1]["samples_per_second"] = -5; },
       "/summary/0/trials_compared/1/samples_per_second"},
      {6, [](json& d) { d["trials"][2]["epochs"][1]["timed_samples"] = 1e308; },
       "/trials/2/epochs/1/timed_samples"},
      {6, [](json& d) { d["trials"][0]["epochs"][1]["seconds"] = 0; }, "/trials/0/epochs/1/seconds"},
      {6, [](json& d) { d["trials"][1]["epochs"][1]["timed_samples"] = -10; },
       "/trials/1/epochs/1/timed_samples"},
      {kSchemaVersion, [](json& d) { d["summary"][0]["samples_per_second"]["median"] = "fast"; },
       "/summary/0/samples_per_second/median"},
      {kSchemaVersion, [](json& d) { d["summary"][0].erase("peak_bytes"); }, "/summary/0/peak_bytes"},
      {kSchemaVersion, [](json& d) { d["summary"][0]["trials_compared"] = "all"; },
       "/summary/0/trials_compared"},
      {kSchemaVersion, [](json& d) { d["summary"][0]["mode"] = "fp64"; }, "/summary/0/mode"},
      // Found by the report fuzzer: "fp16" turned into "fp32" made NEW's second fp32 entry BASE's first.
      {kSchemaVersion, [](json& d) { d["summary"].push_back(d["summary"][0]); },
       "/summary/1/mode: fp32 is summarised twice (also at /summary/0)"},
  };
  for (const auto& p : plants) {
    const auto base = report_doc(p.schema, {{"fp32", kSteady}});
    auto tampered = base;
    p.plant(tampered);
    try {
      compare_reports(base, tampered, {}, false, "base.json", "new.json");
      ADD_FAILURE() << p.path << " was compared";
    } catch (const ampbench::util::InputError& e) {
      EXPECT_EQ(std::string(e.what()).rfind("new.json: not an ampbench report: " + p.path, 0), 0u)
          << e.what();
    }
  }
}

// What the report fuzzer (tests/fuzz/fuzz_report.cpp) starts from and every input it found a bug with: each
// is compared with itself, as the fuzzer does, and either is refused or changed in nothing.
TEST(Compare, FuzzCorpusNeverCrashes) {
  int count = 0;
  for (const auto& file :
       std::filesystem::directory_iterator(ampbench::testing::source_dir() + "/tests/fuzz/report_corpus")) {
    SCOPED_TRACE(file.path().string());
    const auto document = json::parse(std::ifstream(file.path()), nullptr, /*allow_exceptions=*/false);
    try {
      const auto comparison = compare_reports(document, document, {}, /*force=*/false);
      for (const auto& mode : comparison.modes) {
        if (mode.unfinished_in_new) continue;
        for (const auto* change : {&mode.speed, &mode.memory, &mode.val_loss}) {
          EXPECT_EQ(change->change, 0) << mode.mode;
          EXPECT_EQ(change->verdict, ChangeVerdict::ok) << mode.mode;
        }
      }
      ampbench::compare::comparison_to_markdown(comparison);
    } catch (const ampbench::util::InputError&) {
    }
    ++count;
  }
  EXPECT_GE(count, 5);
}
