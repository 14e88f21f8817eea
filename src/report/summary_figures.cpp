#include "report/summary_figures.h"

namespace ampbench::report {

SummaryFigures figures_of(const ModeSummary& s) {
  std::vector<double> rates;
  for (const auto& trial : s.trials_compared) rates.push_back(trial.samples_per_second);
  return {s.mode,
          s.emulated,
          static_cast<int64_t>(s.trials_compared.size()),
          s.samples_per_second.median,
          measure::bootstrap_median(rates),
          s.speedup_vs_fp32,
          s.speedup_interval,
          s.peak_bytes,
          s.activation_bytes,
          s.fidelity.verdict,
          rates};
}

namespace {

template <typename T>
std::optional<T> optional_at(const nlohmann::json& entry, const char* key) {
  const auto& value = entry.at(key);
  return value.is_null() ? std::nullopt : std::optional<T>(value.get<T>());
}

std::optional<measure::Interval> interval_at(const nlohmann::json& entry, const char* key) {
  const auto& value = entry.at(key);
  if (value.is_null()) return std::nullopt;
  return measure::Interval{value.at(0).get<double>(), value.at(1).get<double>()};
}

std::optional<FidelityVerdict> verdict_at(const nlohmann::json& entry) {
  const auto& value = entry.at("fidelity");
  if (value.is_null()) return std::nullopt;
  if (auto verdict = fidelity_verdict_named(value.get<std::string>())) return verdict;
  throw std::invalid_argument("unknown fidelity verdict " + value.dump());
}

}  // namespace

SummaryFigures figures_of(const nlohmann::json& summary) {
  const auto mode = amp::parse_precision_mode(summary.at("mode").get<std::string>());
  if (!mode) throw std::invalid_argument("unknown mode " + summary.at("mode").dump());
  std::vector<double> rates;
  for (const auto& trial : summary.at("trials_compared"))
    rates.push_back(trial.at("samples_per_second").get<double>());
  return {*mode,
          summary.at("emulated").get<bool>(),
          static_cast<int64_t>(rates.size()),
          optional_at<double>(summary.at("samples_per_second"), "median"),
          measure::bootstrap_median(rates),
          optional_at<double>(summary, "speedup_vs_fp32"),
          interval_at(summary, "speedup_interval_95"),
          summary.at("peak_bytes").get<int64_t>(),
          optional_at<int64_t>(summary, "activation_bytes"),
          verdict_at(summary),
          rates};
}

}  // namespace ampbench::report
