#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "measure/statistics.h"
#include "report/report.h"
#include "util/output_files.h"

namespace ampbench::report {

// One figure of a benchmark as the dashboards take it: Bencher's measure (its slug), the unit
// github-action-benchmark shows, which way is better, and the value with its 95 % interval where the run
// measured one.
struct BenchmarkFigure {
  std::string_view measure;
  std::string_view unit;
  bool bigger_is_better = true;
  double value = 0;
  std::optional<measure::Interval> interval;
};

// A mode of a run (or of a sweep's point): "<experiment>/<mode>", or "<experiment>/<settings>/<mode>".
struct Benchmark {
  std::string name;
  std::vector<BenchmarkFigure> figures;
};

// The benchmarks of a run's modes that finished a timed trial, each named `prefix` + "/" + mode. An
// emulated mode has no speed figures: its time is the emulation's, not the format's.
std::vector<Benchmark> benchmarks_of(const RunReport& report, const std::string& prefix);

// Bencher Metric Format: {"<benchmark>": {"<measure>": {"value", "lower_value", "upper_value"}}}.
std::string to_bmf(const std::vector<Benchmark>& benchmarks);

// github-action-benchmark's custom tools: a list of {"name", "unit", "value", "range", "extra"} for the
// figures where bigger is better (customBiggerIsBetter.json) and those where smaller is
// (customSmallerIsBetter.json).
std::vector<util::OutputFile> benchmark_action_files(const std::vector<Benchmark>& benchmarks);

}  // namespace ampbench::report
