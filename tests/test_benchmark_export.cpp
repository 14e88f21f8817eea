// The dashboards' exports (--export-bmf, --export-benchmark-action): each figure taken from the summary field
// its name says, with the interval computed as the reports compute it; an emulated mode without speed.
#include <gtest/gtest.h>

#include <cmath>

#include <nlohmann/json.hpp>

#include "exports/benchmark_export.h"
#include "measure/statistics.h"

namespace ampbench::report {
namespace {

using amp::PrecisionMode;

ModeSummary summary_of(PrecisionMode mode, std::vector<double> rates) {
  ModeSummary s;
  s.mode = mode;
  s.trials = static_cast<int64_t>(rates.size());
  for (size_t i = 0; i < rates.size(); ++i) s.trials_compared.push_back({int64_t(i) + 1, {2}, rates[i]});
  // The summary's samples/s is over epochs x trials: a different median from the trials' one, on purpose.
  s.samples_per_second = measure::summarize_samples({1.0, 2.0, 3.0});
  s.epoch_seconds = measure::summarize_samples({0.5, 0.7, 0.6});
  s.peak_bytes = 4096;
  s.activation_bytes = 1024;
  s.val_loss = 0.75;
  s.fidelity.val_loss = measure::summarize_samples({0.70, 0.80, 0.78});
  s.fidelity.seeds = 3;
  return s;
}

RunReport report_of(std::vector<ModeSummary> summary) {
  RunReport report;
  report.context.name = "exp";
  report.summary = std::move(summary);
  return report;
}

const BenchmarkFigure* figure(const Benchmark& b, std::string_view measure) {
  for (const auto& f : b.figures)
    if (f.measure == measure) return &f;
  return nullptr;
}

TEST(BenchmarkExport, EachFigureComesFromTheFieldItsNameSays) {
  auto fp32 = summary_of(PrecisionMode::fp32, {100, 110, 90});
  fp32.speedup_vs_fp32 = 1.0;
  auto bf16 = summary_of(PrecisionMode::bf16, {200, 240, 210});
  bf16.speedup_vs_fp32 = 2.1;
  bf16.speedup_interval = measure::Interval{1.9, 2.4};
  bf16.activation_bytes.reset();
  const auto benchmarks = benchmarks_of(report_of({fp32, bf16}), "exp");
  ASSERT_EQ(benchmarks.size(), 2u);
  EXPECT_EQ(benchmarks[0].name, "exp/fp32");
  EXPECT_EQ(benchmarks[1].name, "exp/bf16");
  // fp32's speed-up over itself says nothing: left out.
  EXPECT_EQ(figure(benchmarks[0], "speedup-vs-fp32"), nullptr);

  const auto& b = benchmarks[1];
  // samples/s: the trials' median (210), with the bootstrap interval of that median over the trials.
  const auto* rate = figure(b, "samples-per-second");
  ASSERT_NE(rate, nullptr);
  EXPECT_EQ(rate->value, 210);
  const auto interval = measure::bootstrap_median({200, 240, 210});
  ASSERT_TRUE(interval && rate->interval);
  EXPECT_EQ(rate->interval->low, interval->low);
  EXPECT_EQ(rate->interval->high, interval->high);
  EXPECT_TRUE(rate->bigger_is_better);
  const auto* speedup = figure(b, "speedup-vs-fp32");
  ASSERT_NE(speedup, nullptr);
  EXPECT_EQ(speedup->value, 2.1);
  EXPECT_EQ(speedup->interval->low, 1.9);
  EXPECT_EQ(speedup->interval->high, 2.4);
  EXPECT_EQ(figure(b, "epoch-seconds")->value, 0.6);
  EXPECT_FALSE(figure(b, "epoch-seconds")->bigger_is_better);
  EXPECT_EQ(figure(b, "peak-bytes")->value, 4096);
  EXPECT_EQ(figure(b, "activation-bytes"), nullptr);  // not measured: no figure rather than a zero
  // val loss over three seeds: mean 0.76, sd 0.052915, t(2) = 4.3027: 0.76 +- 0.13145.
  const auto* loss = figure(b, "val-loss");
  ASSERT_NE(loss, nullptr);
  EXPECT_NEAR(loss->value, 0.76, 1e-12);
  const double half = 4.302653 * std::sqrt((0.06 * 0.06 + 0.04 * 0.04 + 0.02 * 0.02) / 2) / std::sqrt(3.0);
  EXPECT_NEAR(loss->interval->low, 0.76 - half, 1e-6);
  EXPECT_NEAR(loss->interval->high, 0.76 + half, 1e-6);
}

TEST(BenchmarkExport, OneSeedGivesTheRunsValLossWithoutAnInterval) {
  auto bf16 = summary_of(PrecisionMode::bf16, {200});
  bf16.fidelity.val_loss = measure::summarize_samples({0.75});
  const auto benchmarks = benchmarks_of(report_of({bf16}), "exp");
  ASSERT_EQ(benchmarks.size(), 1u);
  EXPECT_EQ(figure(benchmarks[0], "val-loss")->value, 0.75);
  EXPECT_FALSE(figure(benchmarks[0], "val-loss")->interval);
  EXPECT_FALSE(figure(benchmarks[0], "samples-per-second")->interval);  // one trial: no interval
}

TEST(BenchmarkExport, AnEmulatedModeHasNoSpeedAndAModeThatNeverFinishedIsLeftOut) {
  auto mx = summary_of(PrecisionMode::mxfp8, {50, 55});
  mx.emulated = true;
  mx.speedup_vs_fp32 = 0.2;
  auto fp16 = summary_of(PrecisionMode::fp16, {});
  const auto benchmarks = benchmarks_of(report_of({mx, fp16}), "exp");
  ASSERT_EQ(benchmarks.size(), 1u);
  EXPECT_EQ(benchmarks[0].name, "exp/mxfp8");
  for (const char* speed : {"samples-per-second", "speedup-vs-fp32", "epoch-seconds"})
    EXPECT_EQ(figure(benchmarks[0], speed), nullptr) << speed;
  EXPECT_NE(figure(benchmarks[0], "peak-bytes"), nullptr);
  EXPECT_NE(figure(benchmarks[0], "val-loss"), nullptr);
}

// On a GPU with the format's kernels, the block-scaled mode's time is the format's: it is exported.
TEST(BenchmarkExport, ABlockScaledModeOnTheKernelsHasItsSpeed) {
  auto mx = summary_of(PrecisionMode::mxfp8, {50, 55});
  mx.speedup_vs_fp32 = 1.3;
  const auto benchmarks = benchmarks_of(report_of({mx}), "exp");
  ASSERT_EQ(benchmarks.size(), 1u);
  EXPECT_EQ(figure(benchmarks[0], "speedup-vs-fp32")->value, 1.3);
  EXPECT_NE(figure(benchmarks[0], "samples-per-second"), nullptr);
}

TEST(BenchmarkExport, BmfNestsMeasuresUnderBenchmarksWithTheirBounds) {
  auto bf16 = summary_of(PrecisionMode::bf16, {200, 240, 210});
  const auto doc = nlohmann::json::parse(to_bmf(benchmarks_of(report_of({bf16}), "exp")));
  const auto& rate = doc.at("exp/bf16").at("samples-per-second");
  EXPECT_EQ(rate.at("value"), 210.0);
  EXPECT_LE(rate.at("lower_value").get<double>(), 210.0);
  EXPECT_GE(rate.at("upper_value").get<double>(), 210.0);
  EXPECT_FALSE(doc.at("exp/bf16").at("peak-bytes").contains("lower_value"));
}

TEST(BenchmarkExport, TheActionFilesSplitFiguresByTheirDirection) {
  auto bf16 = summary_of(PrecisionMode::bf16, {200, 240, 210});
  bf16.speedup_vs_fp32 = 2.1;
  bf16.speedup_interval = measure::Interval{1.9, 2.4};
  const auto files = benchmark_action_files(benchmarks_of(report_of({bf16}), "exp"));
  ASSERT_EQ(files.size(), 2u);
  EXPECT_EQ(files[0].name, "customBiggerIsBetter.json");
  EXPECT_EQ(files[1].name, "customSmallerIsBetter.json");
  const auto bigger = nlohmann::json::parse(files[0].content);
  const auto smaller = nlohmann::json::parse(files[1].content);
  std::vector<std::string> bigger_names, smaller_names;
  for (const auto& e : bigger) bigger_names.push_back(e.at("name"));
  for (const auto& e : smaller) smaller_names.push_back(e.at("name"));
  EXPECT_EQ(bigger_names,
            (std::vector<std::string>{"exp/bf16/samples-per-second", "exp/bf16/speedup-vs-fp32"}));
  EXPECT_EQ(smaller_names, (std::vector<std::string>{"exp/bf16/epoch-seconds", "exp/bf16/peak-bytes",
                                                     "exp/bf16/activation-bytes", "exp/bf16/val-loss"}));
  // The wider side of [1.9, 2.4] around 2.1 is 0.3: the range the action reads, the interval in extra.
  EXPECT_EQ(bigger[1].at("range"), "± 0.3");
  EXPECT_EQ(bigger[1].at("extra"), "95% interval [1.9, 2.4]");
  EXPECT_EQ(bigger[1].at("unit"), "x");
}

}  // namespace
}  // namespace ampbench::report
