#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "measure/linear_fit.h"
#include "measure/statistics.h"
#include "report/report.h"
#include "report/summary_figures.h"
#include "sweep/sweep_config.h"

namespace ampbench::sweep {

// How a point's run ended: it finished, it stopped partway (a signal, a failed trial), it never ran, or it
// is another shard's to run.
enum class SweepPointStatus { finished, partial, missing, elsewhere };
std::string_view to_string(SweepPointStatus status);

struct SweepPointReport {
  SweepPoint point;
  int64_t batch_size = 0;  // the point's resolved train.batch_size, swept or not
  SweepPointStatus status = SweepPointStatus::missing;
  std::string run_folder;  // relative to the sweep folder; empty when it never ran
  std::vector<report::SummaryFigures> modes;
};

// Where a mode's speed-up over fp32 is best and where it crosses 1.0, judged on the intervals.
struct SpeedupShape {
  amp::PrecisionMode mode = amp::PrecisionMode::fp32;
  std::optional<int64_t> best_point;               // the point of the largest median speed-up
  std::vector<int64_t> tied_with_best;             // points whose interval overlaps the best one's
  std::vector<int64_t> faster, slower, undecided;  // interval above 1, below 1, around 1 (or none)
  // One swept key: the two points the intervals place on either side of 1.0, in sweep order.
  std::optional<std::pair<int64_t, int64_t>> crossing;
  int64_t without_interval = 0;  // undecided points with no interval at all (one timed trial)
};

// How a mode's step time grows with the batch: t(b) = a + c * b over every timed trial of every point (its
// step time b / samples per second), a the fixed cost of a step (launches, framework), c the cost per sample.
struct StepCostFit {
  amp::PrecisionMode mode = amp::PrecisionMode::fp32;
  measure::LinearFit fit;  // intercept a and slope c, in seconds
  // The fixed cost's share of the fitted step, a / (a + c * b), at each point that ran where the fitted
  // step is positive: (point, share).
  std::vector<std::pair<int64_t, double>> fixed_share;
};

// A share of a sweep's points: those whose index - 1 is `index` - 1 modulo `count` (round-robin).
struct Shard {
  int64_t index = 1;  // 1-based
  int64_t count = 1;
  bool holds(int64_t point) const { return (point - 1) % count == index - 1; }
};

struct SweepReport {
  std::string name;  // the experiment's
  std::vector<SweepAxis> axes;
  std::optional<Shard> shard;            // the share this report's run ran; none: the whole sweep
  std::vector<SweepPointReport> points;  // every point, in order, missing ones and other shards' too
  std::vector<SpeedupShape> shapes;      // one per mode other than fp32 that ran at some point
  // Sweeps of /train/batch_size alone: one per mode whose trials span two batch sizes or more.
  std::vector<StepCostFit> step_costs;
  // A merge that --force kept across builds, machines or archives: each point's difference from the first.
  std::vector<std::string> environment_differences;
  std::vector<int64_t> run_order;  // the indices of the points that ran here, in the order they ran
  bool complete() const;           // every point of its share finished
};

// A point that ran, from its report; `run_folder` relative to the sweep folder.
SweepPointReport point_report(const SweepPoint& point, int64_t batch_size, const report::RunReport& report,
                              bool finished, std::string run_folder);

// The sweep's report from its points (missing ones included), with each mode's speed-up shape.
SweepReport make_sweep_report(std::string name, std::vector<SweepAxis> axes, std::optional<Shard> shard,
                              std::vector<SweepPointReport> points);

// A line per fitted mode: its fixed and per-sample costs with their intervals, and the fixed share of the
// step from the smallest batch to the largest.
std::vector<std::string> step_cost_lines(const SweepReport& report);

// A mode's speed-up over fp32 with its interval, "1.52x [1.40, 1.61]"; "-" without one.
std::string speedup_text(const report::SummaryFigures& figures);

// A line per mode: where its speed-up is best, and where it crosses 1.0 or that it does not.
std::vector<std::string> speedup_lines(const SweepReport& report);

// Every line the reports print under the table: the speed-up lines, the step-cost lines, the emulated
// modes' lines, and a line per point that a forced merge kept from another build, machine or archive.
std::vector<std::string> report_lines(const SweepReport& report);

}  // namespace ampbench::sweep
