#include "report/csv_report.h"

#include <sstream>

#include "report/csv_cells.h"

namespace ampbench::report {
namespace {

using train::TrialRecord;

std::string trial_tail(const TrialRecord& t, const char* purpose) {
  std::ostringstream out;
  out << ',' << optional_cell(t.memory.static_bytes) << ',' << optional_cell(t.memory.activation_peak_bytes())
      << ',' << (t.tf32 ? "true" : "false") << ',' << (t.channels_last ? "true" : "false") << ','
      << text_cell(t.detail) << ',' << purpose << ',' << t.seed;
  return out.str();
}

void trial_rows(const TrialRecord& t, const char* purpose, std::ostringstream& out) {
  for (const auto& e : t.epochs) {
    auto percentile = [&](double q) { return optional_cell(measure::quantile(e.step_seconds, q)); };
    out << amp::to_string(t.mode) << ',' << t.trial << ',' << e.epoch << ',' << train::to_string(t.status)
        << ',' << csv_number(e.seconds) << ',' << e.timed_steps << ',' << e.timed_samples << ','
        << csv_number(e.samples_per_second) << ',' << percentile(0.5) << ',' << percentile(0.9) << ','
        << percentile(0.99) << ',' << csv_number(e.train_loss) << ',' << csv_number(e.val_loss) << ','
        << csv_number(e.val_accuracy) << ',' << optional_cell(e.val_perplexity) << ',' << t.memory.peak_bytes
        << ',' << t.memory.probe << ',' << optional_cell(e.loss_scale) << ','
        << optional_cell(e.skipped_steps) << trial_tail(t, purpose) << "\n";
  }
  if (t.epochs.empty()) {
    out << amp::to_string(t.mode) << ',' << t.trial << ",," << train::to_string(t.status)
        << std::string(12, ',')
        << (t.status == train::TrialStatus::skipped ? "" : std::to_string(t.memory.peak_bytes)) << ','
        << t.memory.probe << ",," << trial_tail(t, purpose) << "\n";
  }
}

}  // namespace

std::string to_csv(const RunReport& report) {
  std::ostringstream out;
  out << kCsvColumns << "\n";
  for (const auto& t : report.measured.trials) trial_rows(t, "timed", out);
  for (const auto& t : report.measured.fidelity_trials) trial_rows(t, "fidelity", out);
  return out.str();
}

namespace {

template <typename T>
std::string interval_cells(const std::optional<T>& interval) {
  return interval ? csv_number(interval->low) + ',' + csv_number(interval->high) : std::string(",");
}

std::string verdict_cell(const std::optional<FidelityVerdict>& verdict) {
  return verdict ? std::string(to_string(*verdict)) : std::string();
}

}  // namespace

std::string to_summary_csv(const RunReport& report) {
  std::ostringstream out;
  out << kSummaryCsvColumns << "\n";
  for (const auto& s : report.summary) {
    const auto& f = s.fidelity;
    out << amp::to_string(s.mode) << ',' << s.trials << ',' << optional_cell(s.samples_per_second.median)
        << ',' << optional_cell(s.speedup_vs_fp32) << ',' << interval_cells(s.speedup_interval) << ','
        << s.peak_bytes << ',' << optional_cell(s.memory_ratio_vs_fp32) << ','
        << optional_cell(s.activation_ratio_vs_fp32) << ',' << f.seeds << ','
        << optional_cell(f.val_loss.mean) << ',' << optional_cell(f.val_loss.stddev) << ','
        << optional_cell(f.val_accuracy_mean) << ',' << optional_cell(s.fidelity_noise_floor) << ','
        << f.paired_seeds << ',' << optional_cell(f.delta_mean) << ',' << interval_cells(f.delta_interval)
        << ',' << csv_number(report.context.fidelity_tolerance) << ',' << verdict_cell(f.verdict) << ','
        << optional_cell(f.seeds_needed) << ',' << optional_cell(s.low_precision_flop_share) << "\n";
  }
  return out.str();
}

}  // namespace ampbench::report
