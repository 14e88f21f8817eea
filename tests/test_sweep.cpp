// Sweeps: reading the config's "sweep", the grid of points, each mode's speed-up shape over the points,
// and the sweep report's files.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <set>

#include "sweep/run_sweep.h"
#include "sweep/sweep_config.h"
#include "sweep/sweep_reader.h"
#include "sweep/sweep_render.h"
#include "sweep/sweep_report.h"
#include "temp_dir_test.h"
#include "util/input_error.h"

namespace {

using ampbench::amp::PrecisionMode;
using ampbench::report::SummaryFigures;
using ampbench::sweep::SweepAxis;
using ampbench::sweep::SweepPointReport;
using ampbench::sweep::SweepPointStatus;
using nlohmann::json;

json base() { return {{"name", "b"}, {"train", {{"batch_size", 8}}}}; }

// The InputError's pointer and problem, for a document's sweep; "" when it reads.
std::string refusal(json doc) {
  try {
    ampbench::sweep::expand_sweep(doc, ampbench::sweep::take_sweep(doc));
  } catch (const ampbench::util::InputError& e) {
    return e.what();
  }
  return "";
}

TEST(Sweep, TheConfigsSweepIsTakenOutAndExpandedIntoAGridFirstAxisSlowest) {
  auto doc = base();
  doc["sweep"] = {{{"key", "/train/batch_size"}, {"values", {8, 16}}},
                  {{"key", "/precision/modes"}, {"values", {json{"fp32"}, json{"fp32", "bf16"}}}}};
  const auto axes = ampbench::sweep::take_sweep(doc);
  EXPECT_FALSE(doc.contains("sweep"));
  const auto points = ampbench::sweep::expand_sweep(doc, axes);
  ASSERT_EQ(points.size(), 4u);
  EXPECT_EQ(points[0].index, 1);
  EXPECT_EQ(points[1].config["train"]["batch_size"], 8);
  EXPECT_EQ(points[1].config["precision"]["modes"], (json{"fp32", "bf16"}));  // a key the base lacks
  EXPECT_EQ(points[2].config["train"]["batch_size"], 16);
  EXPECT_EQ(points[3].index, 4);
  EXPECT_EQ(ampbench::sweep::describe(points[3]),
            "/train/batch_size=16, /precision/modes=[\"fp32\",\"bf16\"]");
  EXPECT_EQ(points[3].config["name"], "b");  // the rest of the config is the base's
  auto plain = base();
  EXPECT_TRUE(ampbench::sweep::take_sweep(plain).empty());
}

TEST(Sweep, AMalformedSweepIsRefusedAtItsPointer) {
  auto with = [](json sweep) {
    auto doc = base();
    doc["sweep"] = std::move(sweep);
    return doc;
  };
  const std::vector<std::pair<json, std::string>> cases{
      {json::object(), "/sweep: must be a non-empty list"},
      {json::array(), "/sweep: must be a non-empty list"},
      {json{5}, "/sweep/0: must be an object"},
      {{{{"values", {1}}}}, "/sweep/0/key"},
      {{{{"key", "/train/batch_size"}}}, "/sweep/0/values: must be a list"},
      {{{{"key", "/train/batch_size"}, {"values", 8}}}, "/sweep/0/values: must be a list"},
      {{{{"key", "/train/batch_size"}, {"values", json::array()}}},
       "/sweep/0/key: /train/batch_size has no values"},
      {{{{"key", "/train/batch_size"}, {"values", {8, 8}}}}, "takes 8 twice"},
      {{{{"key", "train/batch_size"}, {"values", {8}}}}, "/sweep/0/key: the key must be a JSON pointer"},
      {{{{"key", "/"}, {"values", {8}}}}, "/sweep/0/key: the key must be a JSON pointer"},
      {{{{"key", "/a~2b"}, {"values", {8}}}}, "not a JSON pointer"},
      {{{{"key", "/sweep/0"}, {"values", {8}}}}, "a sweep cannot sweep itself"},
      {{{{"key", "/train/batch_size"}, {"values", {8}}, {"valeus", {1}}}}, "/sweep/0/valeus"},
      {{{{"key", "/train/batch_size"}, {"values", {8}}}, {{"key", "/train//batch_size"}, {"values", {8}}}},
       ""},
      {{{{"key", "/train/batch_size"}, {"values", {8}}}, {{"key", "/train/batch_size"}, {"values", {16}}}},
       "the key is swept twice"},
      {{{{"key", "/name/x"}, {"values", {8}}}}, "/name/x: something other than an object is in the way"},
      // Every point runs into the sweep's folder: a swept output folder would be a silent no-op.
      {{{{"key", "/output/dir"}, {"values", {"a", "b"}}}}, "/sweep/0/key: every point runs into the sweep's"},
      {{{{"key", "/output"}, {"values", {json::object()}}}}, "the output folder is not swept"},
  };
  for (const auto& [sweep, expected] : cases) {
    SCOPED_TRACE(sweep.dump());
    const auto line = refusal(with(sweep));
    if (expected.empty()) {
      EXPECT_EQ(line, "");
    } else {
      EXPECT_NE(line.find(expected), std::string::npos) << line;
    }
  }
}

SummaryFigures figures(PrecisionMode mode, double speedup,
                       std::optional<ampbench::measure::Interval> interval) {
  SummaryFigures f;
  f.mode = mode;
  f.trials = 2;
  f.samples_per_second = 100 * speedup;
  f.speedup_vs_fp32 = speedup;
  f.speedup_interval = interval;
  return f;
}

// Points of one key (batch size) whose bf16 speed-up over fp32 is given with its interval.
std::vector<SweepPointReport> points(
    const std::vector<std::pair<double, std::optional<ampbench::measure::Interval>>>& bf16) {
  std::vector<SweepPointReport> out;
  for (size_t i = 0; i < bf16.size(); ++i) {
    ampbench::sweep::SweepPoint point{static_cast<int64_t>(i) + 1, {{"/train/batch_size", 8 << i}}, {}};
    out.push_back({point,
                   int64_t{8} << i,
                   SweepPointStatus::finished,
                   "point-" + std::to_string(i + 1),
                   {figures(PrecisionMode::fp32, 1.0, std::nullopt),
                    figures(PrecisionMode::bf16, bf16[i].first, bf16[i].second)}});
  }
  return out;
}

ampbench::sweep::SweepReport report_of(std::vector<SweepPointReport> points, size_t axes = 1) {
  std::vector<SweepAxis> keys(axes, SweepAxis{"/train/batch_size", {8, 16, 32, 64}});
  return ampbench::sweep::make_sweep_report("b", keys, std::nullopt, std::move(points));
}

// A benchmark's name is its point's label: two points of one sweep never share one, whatever their values
// hold (the separators, or a string that reads as a number).
TEST(Sweep, NoTwoPointsShareABenchmarkLabel) {
  using ampbench::sweep::settings_label;
  const auto point = [](json a, json b) {
    return ampbench::sweep::SweepPoint{1, {{"/a", std::move(a)}, {"/b/c", std::move(b)}}, json::object()};
  };
  EXPECT_EQ(settings_label(point(8, "bf16")), "a=8,b.c=bf16");
  const std::vector<ampbench::sweep::SweepPoint> points{
      point("x,b.c=y", "z"), point("x", "y,b.c=z"), point("8", 1),
      point(8, 1),           point("true", 1),      point(true, 1),
      point("%2C", 1),       point(",", 1),         point(json::array({1, 2}), 1)};
  std::set<std::string> labels;
  for (const auto& p : points) labels.insert(settings_label(p));
  EXPECT_EQ(labels.size(), points.size());
  EXPECT_EQ(settings_label(points[0]), "a=x%2Cb.c%3Dy,b.c=z");
  EXPECT_EQ(settings_label(points[2]), "a=\"8\",b.c=1");
}

TEST(Sweep, TheSpeedupCrossesOneBetweenTheDecidedNeighboursOnEitherSide) {
  const auto report = report_of(
      points({{0.8, {{0.7, 0.9}}}, {1.0, {{0.9, 1.1}}}, {1.4, {{1.3, 1.5}}}, {1.6, {{1.35, 1.8}}}}));
  ASSERT_EQ(report.shapes.size(), 1u);  // bf16; fp32 is the baseline
  const auto& shape = report.shapes[0];
  EXPECT_EQ(shape.best_point, 4);
  EXPECT_EQ(shape.tied_with_best, (std::vector<int64_t>{3}));  // 1.3-1.5 overlaps 1.35-1.8
  EXPECT_EQ(shape.slower, (std::vector<int64_t>{1}));
  EXPECT_EQ(shape.undecided, (std::vector<int64_t>{2}));
  EXPECT_EQ(shape.faster, (std::vector<int64_t>{3, 4}));
  ASSERT_TRUE(shape.crossing);
  EXPECT_EQ(*shape.crossing, (std::pair<int64_t, int64_t>{1, 3}));
  const auto lines = ampbench::sweep::speedup_lines(report);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(
      lines[0],
      "bf16: best at /train/batch_size=64, 1.60x [1.35, 1.80] fp32's speed (its interval overlaps those of "
      "/train/batch_size=32); crosses 1.0 between /train/batch_size=8 and /train/batch_size=32; the "
      "intervals cannot tell it from fp32 at /train/batch_size=16.");
}

TEST(Sweep, WithoutIntervalsNothingIsDecidedAndTheLineSaysWhy) {
  const auto report = report_of(points({{0.8, std::nullopt}, {1.3, std::nullopt}}));
  const auto& shape = report.shapes.at(0);
  EXPECT_EQ(shape.best_point, 2);
  EXPECT_FALSE(shape.crossing);
  EXPECT_EQ(shape.undecided, (std::vector<int64_t>{1, 2}));
  EXPECT_NE(ampbench::sweep::speedup_lines(report)[0].find(
                "(2 of them without one: an interval needs two timed trials"),
            std::string::npos);
}

TEST(Sweep, OneSidedSpeedupsSaySoAndAGridHasNoCrossing) {
  auto faster = report_of(points({{1.2, {{1.1, 1.3}}}, {1.5, {{1.4, 1.6}}}}));
  EXPECT_NE(ampbench::sweep::speedup_lines(faster)[0].find("; faster than fp32 at every point."),
            std::string::npos);
  auto slower = report_of(points({{0.5, {{0.4, 0.6}}}, {0.7, {{0.6, 0.8}}}}));
  EXPECT_NE(ampbench::sweep::speedup_lines(slower)[0].find("; slower than fp32 at every point."),
            std::string::npos);
  // Two keys: "between" two points of a grid means nothing, so the sides are listed instead.
  auto grid = report_of(points({{0.5, {{0.4, 0.6}}}, {1.5, {{1.4, 1.6}}}}), 2);
  EXPECT_FALSE(grid.shapes.at(0).crossing);
  EXPECT_NE(ampbench::sweep::speedup_lines(grid)[0].find(
                "; faster than fp32 at /train/batch_size=16; slower at /train/batch_size=8."),
            std::string::npos);
}

TEST(Sweep, TheReportFilesCarryEveryPointAndModeAndNameTheMissingOnes) {
  auto all = points({{0.8, {{0.7, 0.9}}}, {1.4, {{1.3, 1.5}}}});
  all[1] = {all[1].point, 0, SweepPointStatus::missing, "", {}};
  const auto report = report_of(all);
  EXPECT_FALSE(report.complete());
  const auto doc = ampbench::sweep::to_json(report);
  EXPECT_EQ(doc["sweep_schema_version"], ampbench::sweep::kSweepSchemaVersion);
  EXPECT_EQ(doc["complete"], false);
  EXPECT_EQ(doc["not_finished"], json{2});
  EXPECT_EQ(doc["points"][0]["settings"]["/train/batch_size"], 8);
  EXPECT_EQ(doc["points"][0]["modes"][1]["speedup_vs_fp32"], 0.8);
  EXPECT_EQ(doc["points"][0]["modes"][1]["speedup_interval_95"], (json{0.7, 0.9}));
  EXPECT_EQ(doc["points"][1]["status"], "missing");
  EXPECT_TRUE(doc["points"][1]["run_folder"].is_null());
  const auto csv = ampbench::sweep::to_csv(report);
  EXPECT_EQ(csv.substr(0, csv.find('\n')),
            "point,/train/batch_size,status,mode,emulated,trials,samples_per_second,samples_per_second_low,"
            "samples_per_second_high,speedup_vs_fp32,speedup_low,speedup_high,peak_bytes,activation_bytes,"
            "fidelity,fixed_share");
  EXPECT_NE(csv.find("\n1,8,finished,bf16,false,2,80,,,0.8,0.7,0.9,0,,,\n"), std::string::npos) << csv;
  EXPECT_NE(csv.find("\n2,16,missing,,,,,,,,,,,,,\n"), std::string::npos) << csv;
  const auto console = ampbench::sweep::to_console(report);
  EXPECT_NE(console.find("partial sweep: not finished: 2 (/train/batch_size=16, missing)"),
            std::string::npos);
  EXPECT_NE(ampbench::sweep::to_markdown(report).find("| 1 | 8 | finished | bf16 |"), std::string::npos)
      << ampbench::sweep::to_markdown(report);
}

// Step times of exactly 2 ms + 0.1 ms per sample, two trials a point: the fit finds both, and the fixed
// share of the step shrinks as the batch grows.
TEST(Sweep, ABatchSizeSweepFitsEachModesFixedAndPerSampleCost) {
  auto all = points({{1.0, std::nullopt}, {1.0, std::nullopt}, {1.0, std::nullopt}});
  for (auto& point : all) {
    const double rate = point.batch_size / (0.002 + 0.0001 * point.batch_size);
    for (auto& f : point.modes) f.trial_rates = {rate, rate};
  }
  auto report = report_of(all);
  ASSERT_EQ(report.step_costs.size(), 2u);  // fp32 and bf16
  const auto& fit = report.step_costs[0].fit;
  EXPECT_EQ(fit.samples, 3);  // the points, each its trials' median
  EXPECT_NEAR(fit.intercept, 0.002, 1e-12);
  EXPECT_NEAR(fit.slope, 0.0001, 1e-12);
  ASSERT_EQ(report.step_costs[0].fixed_share.size(), 3u);
  EXPECT_NEAR(report.step_costs[0].fixed_share[0].second, 0.002 / 0.0028, 1e-9);  // batch 8
  EXPECT_NEAR(report.step_costs[0].fixed_share[2].second, 0.002 / 0.0052, 1e-9);  // batch 32
  EXPECT_EQ(ampbench::sweep::step_cost_lines(report)[0],
            "fp32: a fixed 2 ms [2, 2] a step plus 0.1 ms [0.1, 0.1] a sample; the fixed cost is 71 % of the "
            "step at "
            "/train/batch_size=8 and 38 % at /train/batch_size=32.");
  const auto doc = ampbench::sweep::to_json(report);
  EXPECT_NEAR(doc["step_costs"][1]["per_sample_seconds"].get<double>(), 0.0001, 1e-12);
  EXPECT_EQ(doc["points"][0]["batch_size"], 8);
  EXPECT_NE(ampbench::sweep::to_csv(report).find(",0.714285714285714"), std::string::npos);
  // Another key swept beside the batch size changes the cost itself: no fit.
  EXPECT_TRUE(report_of(all, 2).step_costs.empty());
}

// An emulated mode's time is the emulation's: the same trials that give fp32 its fit give it none, a line
// says why, sweep.json and sweep.csv mark it at each point (read back as it was written), and the table
// prints no samples/s of its.
TEST(Sweep, AnEmulatedModeGetsNoStepCostFitAndSaysWhy) {
  auto all = points({{1.0, std::nullopt}, {1.0, std::nullopt}, {1.0, std::nullopt}});
  for (auto& point : all) {
    const double rate = point.batch_size / (0.002 + 0.0001 * point.batch_size);
    for (auto& f : point.modes) f.trial_rates = {rate, rate};
    point.modes[1].mode = PrecisionMode::mxfp8;
    point.modes[1].emulated = true;
    point.modes[1].speedup_vs_fp32.reset();
  }
  const auto report = report_of(all);
  ASSERT_EQ(report.step_costs.size(), 1u);
  EXPECT_EQ(report.step_costs[0].mode, PrecisionMode::fp32);
  const auto lines = ampbench::sweep::report_lines(report);
  EXPECT_NE(std::find(lines.begin(), lines.end(),
                      "mxfp8: its products were emulated (no kernels for its format here): its time is the "
                      "emulation's, so no speed-up or step cost is read from it."),
            lines.end());
  const auto doc = ampbench::sweep::to_json(report);
  EXPECT_EQ(doc["points"][2]["modes"][1]["emulated"], true);
  EXPECT_EQ(doc["points"][2]["modes"][0]["emulated"], false);
  EXPECT_EQ(ampbench::sweep::to_json(ampbench::sweep::read_sweep_report(doc, "s")), doc);
  const auto csv = ampbench::sweep::to_csv(report);
  EXPECT_NE(csv.find("\n3,32,finished,mxfp8,true,2,"), std::string::npos) << csv;
  EXPECT_NE(csv.find("\n3,32,finished,fp32,false,2,"), std::string::npos) << csv;
  const auto table = ampbench::sweep::to_markdown(report);
  EXPECT_NE(table.find("| 3 | 32 | finished | mxfp8 | emulated |"), std::string::npos) << table;
}

// A point's trials share a process and a stretch of time: the fit is over the points' median step times, so
// many trials at two batch sizes give a line but no interval, and the line says why.
TEST(Sweep, TheStepCostFitIsOverThePointsNotTheirTrials) {
  auto all = points({{1.0, std::nullopt}, {1.0, std::nullopt}});
  for (auto& point : all) {
    const double step = 0.002 + 0.0001 * point.batch_size;
    for (auto& f : point.modes)
      f.trial_rates = {point.batch_size / (step * 0.99), point.batch_size / step,
                       point.batch_size / (step * 1.01)};
  }
  const auto report = report_of(all);
  ASSERT_FALSE(report.step_costs.empty());
  const auto& fit = report.step_costs[0].fit;
  EXPECT_EQ(fit.samples, 2);
  EXPECT_NEAR(fit.intercept, 0.002, 1e-12);  // through the two medians
  EXPECT_FALSE(fit.intercept_interval);
  EXPECT_FALSE(fit.slope_interval);
  EXPECT_NE(ampbench::sweep::step_cost_lines(report)[0].find(
                "(2 batch sizes give no interval: sweep three or more)"),
            std::string::npos)
      << ampbench::sweep::step_cost_lines(report)[0];
}

// sweep.json read back is the report it was written from; what is not a sweep report is refused.
TEST(Sweep, ASweepReportReadBackIsTheReportItWasWrittenFrom) {
  auto all = points({{0.8, {{0.7, 0.9}}}, {1.4, std::nullopt}, {1.0, std::nullopt}});
  all[0].modes[1].trial_rates = {79, 81};
  all[2] = {all[2].point, 0, SweepPointStatus::elsewhere, "", {}};
  const auto written = ampbench::sweep::to_json(report_of(all));
  EXPECT_EQ(ampbench::sweep::to_json(ampbench::sweep::read_sweep_report(written, "s")), written);
  for (const auto& [bad, expected] : std::vector<std::pair<json, std::string>>{
           {json::array(), "s: is not an ampbench sweep report"},
           {{{"sweep_schema_version", 4}}, "s: sweep schema version 4; this ampbench reads versions 1 to 3"},
           {[&] {
              auto d = written;
              d["points"][0]["status"] = "done";
              return d;
            }(),
            "unknown point status \"done\""},
           {[&] {
              auto d = written;
              d["points"][0].erase("modes");
              return d;
            }(),
            "s: is not a sweep report as"},
           {[&] {
              auto d = written;
              d["points"][1]["index"] = 5;
              return d;
            }(),
            "not numbered 1 to 3"},
       }) {
    try {
      ampbench::sweep::read_sweep_report(bad, "s");
      ADD_FAILURE() << "read " << bad.dump().substr(0, 80);
    } catch (const ampbench::util::InputError& e) {
      EXPECT_NE(std::string(e.what()).find(expected), std::string::npos) << e.what();
    }
  }
}

class SweepRun : public ampbench::testing::TempDirTest {};

// After a point that did not finish the sweep stops: the points after it are missing, in the report
// returned and the sweep.json written.
TEST_F(SweepRun, ThePointsAfterOneThatDidNotFinishAreMissing) {
  ampbench::sweep::SweepRequest sweep;
  sweep.base.config = {
      {"name", "s"},
      {"model", {{"type", "mlp"}, {"options", {{"width", 8}, {"depth", 1}}}}},
      {"data", {{"synthetic", {{"train_samples", 32}, {"val_samples", 16}, {"shape", {4}}, {"classes", 2}}}}},
      {"train", {{"epochs", 1}, {"batch_size", 8}}},
      {"precision", {{"modes", {"fp32"}}}},
      {"device", "cpu"},
      {"output", {{"dir", dir_.string()}}}};
  sweep.axes = {{"/train/batch_size", {8, 16, 32}}};
  int runs = 0;
  sweep.finished = [&](const ampbench::run::Outcome&) { return ++runs > 1; };  // the first did not finish
  const auto outcome = ampbench::sweep::run_sweep(sweep);
  EXPECT_EQ(runs, 1);
  ASSERT_EQ(outcome.runs.size(), 1u);
  const auto& points = outcome.report.points;
  ASSERT_EQ(points.size(), 3u);
  EXPECT_EQ(points[0].status, SweepPointStatus::partial);
  EXPECT_EQ(points[1].status, SweepPointStatus::missing);
  EXPECT_EQ(points[2].status, SweepPointStatus::missing);
  EXPECT_TRUE(std::filesystem::exists(outcome.folder / "point-1" / "report.json"));
  EXPECT_FALSE(std::filesystem::exists(outcome.folder / "point-2"));
  const auto written = json::parse(std::ifstream(outcome.folder / "sweep.json"));
  EXPECT_EQ(written["not_finished"], (json{1, 2, 3}));
}

}  // namespace
