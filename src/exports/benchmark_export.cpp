#include "exports/benchmark_export.h"

#include <algorithm>
#include <cmath>
#include <functional>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "measure/equivalence.h"
#include "report/format_applied.h"
#include "report/summary_figures.h"

namespace ampbench::report {

namespace {

struct Figure {
  double value = 0;
  std::optional<measure::Interval> interval;
};

// A measure the exports carry: what it is called and how it is read from a mode's summary.
struct MeasureSpec {
  std::string_view measure;
  std::string_view unit;
  bool bigger_is_better;
  bool is_speed;  // left out for an emulated mode
  std::function<std::optional<Figure>(const ModeSummary&)> read;
};

template <typename T>
std::optional<Figure> plain(const std::optional<T>& value) {
  if (!value) return std::nullopt;
  return Figure{static_cast<double>(*value), std::nullopt};
}

// The median of the trials' rates, the statistic its interval (and the speed-ups) are read from.
std::optional<Figure> throughput(const ModeSummary& s) {
  const auto figures = figures_of(s);
  if (figures.trial_rates.empty()) return std::nullopt;
  return Figure{*measure::median(figures.trial_rates), figures.throughput_interval};
}

// Over the fidelity seeds: their mean with its 95 % t interval; at one seed, the run's val loss.
std::optional<Figure> val_loss(const ModeSummary& s) {
  const auto& loss = s.fidelity.val_loss;
  if (loss.count < 2 || !loss.mean || !loss.stddev) return Figure{s.val_loss, std::nullopt};
  const double half = measure::t_critical(loss.count - 1) * *loss.stddev / std::sqrt(double(loss.count));
  return Figure{*loss.mean, measure::Interval{*loss.mean - half, *loss.mean + half}};
}

const std::vector<MeasureSpec>& measure_specs() {
  static const std::vector<MeasureSpec> specs{
      {"samples-per-second", "samples/s", true, true, throughput},
      {"speedup-vs-fp32", "x", true, true,
       [](const ModeSummary& s) -> std::optional<Figure> {
         if (!s.speedup_vs_fp32 || s.mode == amp::PrecisionMode::fp32) return std::nullopt;
         return Figure{*s.speedup_vs_fp32, s.speedup_interval};
       }},
      {"epoch-seconds", "s", false, true, [](const ModeSummary& s) { return plain(s.epoch_seconds.median); }},
      {"peak-bytes", "bytes", false, false,
       [](const ModeSummary& s) { return plain(std::optional<int64_t>(s.peak_bytes)); }},
      {"activation-bytes", "bytes", false, false,
       [](const ModeSummary& s) { return plain(s.activation_bytes); }},
      {"val-loss", "loss", false, false, val_loss},
  };
  return specs;
}

bool finite(const Figure& f) {
  return std::isfinite(f.value) &&
         (!f.interval || (std::isfinite(f.interval->low) && std::isfinite(f.interval->high)));
}

}  // namespace

std::vector<Benchmark> benchmarks_of(const RunReport& report, const std::string& prefix) {
  std::vector<Benchmark> out;
  for (const auto& s : report.summary) {
    // Nothing a float8 or float4 mode measured without a layer in its format is the format's.
    if (s.trials_compared.empty() || format_not_applied(s.mode, report.measured)) continue;
    Benchmark benchmark{prefix + "/" + std::string(amp::to_string(s.mode)), {}};
    for (const auto& spec : measure_specs()) {
      if (spec.is_speed && s.emulated) continue;
      const auto figure = spec.read(s);
      if (!figure || !finite(*figure)) continue;
      benchmark.figures.push_back(
          {spec.measure, spec.unit, spec.bigger_is_better, figure->value, figure->interval});
    }
    out.push_back(std::move(benchmark));
  }
  return out;
}

std::string to_bmf(const std::vector<Benchmark>& benchmarks) {
  auto doc = nlohmann::ordered_json::object();
  for (const auto& benchmark : benchmarks) {
    auto& measures = doc[benchmark.name] = nlohmann::ordered_json::object();
    for (const auto& f : benchmark.figures) {
      nlohmann::ordered_json metric{{"value", f.value}};
      if (f.interval) {
        metric["lower_value"] = f.interval->low;
        metric["upper_value"] = f.interval->high;
      }
      measures[std::string(f.measure)] = std::move(metric);
    }
  }
  return doc.dump(2) + "\n";
}

std::vector<util::OutputFile> benchmark_action_files(const std::vector<Benchmark>& benchmarks) {
  auto bigger = nlohmann::ordered_json::array(), smaller = nlohmann::ordered_json::array();
  for (const auto& benchmark : benchmarks) {
    for (const auto& f : benchmark.figures) {
      nlohmann::ordered_json entry{
          {"name", benchmark.name + "/" + std::string(f.measure)}, {"unit", f.unit}, {"value", f.value}};
      // The action reads "± X" from range; the interval need not be symmetric, so X is its wider side and
      // extra has the interval itself.
      if (f.interval) {
        entry["range"] =
            fmt::format("± {:.6g}", std::max(f.value - f.interval->low, f.interval->high - f.value));
        entry["extra"] = fmt::format("95% interval [{:.6g}, {:.6g}]", f.interval->low, f.interval->high);
      }
      (f.bigger_is_better ? bigger : smaller).push_back(std::move(entry));
    }
  }
  return {{"customBiggerIsBetter.json", bigger.dump(2) + "\n"},
          {"customSmallerIsBetter.json", smaller.dump(2) + "\n"}};
}

}  // namespace ampbench::report
