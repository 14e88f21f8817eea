// --max-batch's front door: each mode's largest batch within a planted budget, found exactly, and each
// mode's run there.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>

#include "app/exit_codes.h"
#include "config/experiment_config.h"
#include "max_batch/max_batch_render.h"
#include "max_batch/max_batch_report.h"
#include "max_batch/run_max_batch.h"
#include "measure/cpu_tracking_allocator.h"
#include "passes/experiment.h"
#include "temp_dir_test.h"
#include "util/input_error.h"

namespace {

using ampbench::amp::PrecisionMode;
using ampbench::measure::CpuTrackingAllocator;
using nlohmann::json;

ampbench::max_batch::MaxBatchMode searched(PrecisionMode mode, int64_t largest, bool data_bound) {
  ampbench::max_batch::MaxBatchMode m;
  m.mode = mode;
  m.search.largest = largest;
  m.search.reached_limit = data_bound;
  if (!data_bound) m.search.smallest_refused = largest + 1;
  return m;
}

// Where the data, not memory, bounded a batch, the ratio against fp32's is a bound, and the line says which.
TEST(MaxBatchLines, TheRatioToFp32sBatchSaysWhenTheDataBoundedOneOfThem) {
  ampbench::max_batch::MaxBatchReport report;
  report.train_samples = 512;
  report.steps_needed = 3;
  auto bf16_line = [&](bool fp32_data_bound, bool bf16_data_bound) {
    report.modes = {searched(PrecisionMode::fp32, 100, fp32_data_bound),
                    searched(PrecisionMode::bf16, 150, bf16_data_bound)};
    return ampbench::max_batch::max_batch_lines(report).back();
  };
  EXPECT_EQ(bf16_line(false, false).rfind("bf16 fits 1.50x fp32's batch (150 against 100); ", 0), 0u);
  EXPECT_EQ(bf16_line(false, true).rfind("bf16 fits at least 1.50x fp32's batch", 0), 0u);
  EXPECT_EQ(bf16_line(true, false).rfind("bf16 fits at most 1.50x fp32's batch", 0), 0u);
  EXPECT_EQ(bf16_line(true, true).rfind("bf16 fits 1.50x", 0), 0u);
  const auto lines = ampbench::max_batch::max_batch_lines(report);
  EXPECT_EQ(lines[0],
            "fp32: batch 100 fits, the largest the data allows (512 training samples, an epoch of at least 3 "
            "step(s)): the budget does not bound it");
  report.modes = {searched(PrecisionMode::fp32, 0, false)};
  report.budget_bytes = 64 << 20;
  EXPECT_EQ(ampbench::max_batch::max_batch_lines(report),
            std::vector<std::string>{"fp32: not even a batch of 1 fits 64.0 MiB"});
  // A budget below a MiB is said in its own unit, never "0.0 MiB".
  report.budget_bytes = 200 << 10;
  EXPECT_EQ(ampbench::max_batch::max_batch_lines(report),
            std::vector<std::string>{"fp32: not even a batch of 1 fits 200.0 KiB"});
}

// An emulated mode's samples/s are the emulation's: its line and max_batch.md say so in their place, and
// max_batch.json marks it.
TEST(MaxBatchLines, AnEmulatedModesThroughputIsNotRead) {
  ampbench::max_batch::MaxBatchReport report;
  report.modes = {searched(PrecisionMode::fp32, 100, false), searched(PrecisionMode::nvfp4, 120, false)};
  for (auto& m : report.modes) {
    m.figures = ampbench::report::SummaryFigures{};
    m.figures->mode = m.mode;
    m.figures->samples_per_second = 1234.5;
  }
  report.modes[1].figures->emulated = true;
  EXPECT_EQ(ampbench::max_batch::max_batch_lines(report).back(),
            "nvfp4 fits 1.20x fp32's batch (120 against 100); its products were emulated there, so no "
            "throughput is read");
  const auto markdown = ampbench::max_batch::to_markdown(report);
  ASSERT_NE(markdown.find("1234.5"), std::string::npos) << markdown;
  EXPECT_EQ(markdown.find("1234.5"), markdown.rfind("1234.5")) << markdown;  // fp32's alone
  EXPECT_NE(markdown.find("| emulated"), std::string::npos) << markdown;
  const auto doc = ampbench::max_batch::to_json(report);
  EXPECT_EQ(doc["modes"][1]["emulated"], true);
  EXPECT_EQ(doc["modes"][0]["emulated"], false);
}

class MaxBatchRun : public ampbench::testing::TempDirTest {
 protected:
  // Wide enough that pure bf16's halved state outweighs the fp32 working copies of one optimizer slice,
  // which its SGD step takes where the fused kernel skips bf16 weights.
  json config() const {
    return {{"name", "mb"},
            {"model", {{"type", "mlp"}, {"options", {{"width", 256}, {"depth", 1}}}}},
            {"data",
             {{"synthetic", {{"train_samples", 512}, {"val_samples", 64}, {"shape", {64}}, {"classes", 4}}}}},
            {"train", {{"epochs", 1}, {"batch_size", 8}, {"threads", 1}}},
            {"precision", {{"modes", {"fp32", "bf16"}}}},
            {"device", "cpu"},
            {"output", {{"dir", dir_.string()}}}};
  }
  // What `mode` holds at its peak at `batch`, with no budget in force.
  int64_t peak(PrecisionMode mode, int64_t batch) const {
    ampbench::train::Experiment experiment(ampbench::config::parse_experiment_config(config()), torch::kCPU);
    const auto fit = experiment.fit_batch(mode, batch);
    EXPECT_TRUE(fit.fits);
    return fit.peak_bytes;
  }
};

// The MLP's memory grows with each sample (its activations): a budget halfway between what batches 37 and
// 38 hold admits 37 and not 38. Every mode's answer is checked the same way afterwards: its batch fits the
// budget and the next does not.
TEST_F(MaxBatchRun, FindsEachModesExactLargestBatchWithinAPlantedBudgetAndRunsItThere) {
  const int64_t at_37 = peak(PrecisionMode::fp32, 37), at_38 = peak(PrecisionMode::fp32, 38);
  ASSERT_GT(at_38, at_37);
  const int64_t budget = at_37 + (at_38 - at_37) / 2;
  CpuTrackingAllocator::install();
  const auto held_before = CpuTrackingAllocator::current_bytes();
  ampbench::max_batch::MaxBatchRequest request;
  request.base.config = config();
  request.memory_budget = budget;
  const auto outcome = ampbench::max_batch::run_max_batch(request);
  // Every out-of-memory on the way was caught and its memory given back.
  EXPECT_EQ(CpuTrackingAllocator::current_bytes(), held_before);
  ASSERT_EQ(outcome.report.modes.size(), 2u);
  const auto& fp32 = outcome.report.modes[0];
  EXPECT_EQ(fp32.search.largest, 37);
  EXPECT_EQ(fp32.search.smallest_refused, 38);
  EXPECT_EQ(fp32.peak_bytes, at_37);
  for (const auto& m : outcome.report.modes) {
    SCOPED_TRACE(ampbench::amp::to_string(m.mode));
    ASSERT_GT(m.search.largest, 0);
    EXPECT_FALSE(m.search.reached_limit);
    EXPECT_LE(peak(m.mode, m.search.largest), budget);
    EXPECT_GT(peak(m.mode, m.search.largest + 1), budget);
    // Its run at that batch, alone, and the figures from that run's own report.
    ASSERT_TRUE(m.figures && m.figures->samples_per_second) << m.not_measured.value_or("");
    const auto run = json::parse(std::ifstream(outcome.folder / m.run_folder / "report.json"));
    EXPECT_EQ(run["config"]["train"]["batch_size"], m.search.largest);
    EXPECT_EQ(run["config"]["precision"]["modes"], json{ampbench::amp::to_string(m.mode)});
    EXPECT_DOUBLE_EQ(run["summary"][0]["samples_per_second"]["median"].get<double>(),
                     *m.figures->samples_per_second);
  }
  EXPECT_EQ(ampbench::app::exit_code_for(outcome), 0);
  const auto written = json::parse(std::ifstream(outcome.folder / "max_batch.json"));
  EXPECT_EQ(written, ampbench::max_batch::to_json(outcome.report));
  EXPECT_EQ(written["modes"][0]["largest_batch"], 37);
  EXPECT_EQ(written["budget_bytes"], budget);
  std::ifstream csv(outcome.folder / "max_batch.csv");
  std::string header, first;
  std::getline(csv, header);
  std::getline(csv, first);
  EXPECT_EQ(first.rfind("fp32,37,memory,38,", 0), 0u) << first;
  EXPECT_TRUE(std::filesystem::exists(outcome.folder / "max_batch.md"));
}

// Pure bf16 holds its state and its activations in bf16: within the budget that fits fp32's batch of 37
// it fits a larger one, found as exactly.
TEST_F(MaxBatchRun, PureBf16FitsALargerBatchThanFp32WithinTheSameBudget) {
  const int64_t budget = peak(PrecisionMode::fp32, 37);
  CpuTrackingAllocator::install();
  ampbench::max_batch::MaxBatchRequest request;
  request.base.config = config();
  request.base.config["precision"]["modes"] = {"fp32", "bf16-pure"};
  request.memory_budget = budget;
  const auto outcome = ampbench::max_batch::run_max_batch(request);
  ASSERT_EQ(outcome.report.modes.size(), 2u);
  EXPECT_EQ(outcome.report.modes[0].search.largest, 37);
  const auto& pure = outcome.report.modes[1];
  ASSERT_EQ(pure.mode, PrecisionMode::bf16_pure);
  ASSERT_GT(pure.search.largest, 37);
  ASSERT_FALSE(pure.search.reached_limit);
  EXPECT_LE(peak(PrecisionMode::bf16_pure, pure.search.largest), budget);
  EXPECT_GT(peak(PrecisionMode::bf16_pure, pure.search.largest + 1), budget);
  EXPECT_TRUE(pure.figures && pure.figures->samples_per_second) << pure.not_measured.value_or("");
}

TEST_F(MaxBatchRun, ABudgetThatCannotHoldTheRunBeforeItTrainsIsRefusedWithNothingWritten) {
  ampbench::max_batch::MaxBatchRequest request;
  request.base.config = config();
  request.memory_budget = 1024;
  try {
    ampbench::max_batch::run_max_batch(request);
    ADD_FAILURE() << "a budget of 1 KiB was taken";
  } catch (const ampbench::util::InputError& e) {
    EXPECT_EQ(e.where(), "--memory-budget");
    EXPECT_NE(std::string(e.what()).find("cannot hold the run before it trains"), std::string::npos)
        << e.what();
  }
  EXPECT_TRUE(std::filesystem::is_empty(dir_));
  request.memory_budget.reset();  // on the CPU a budget must be given
  EXPECT_THROW(ampbench::max_batch::run_max_batch(request), ampbench::util::InputError);
}

}  // namespace
