#include "report/csv_report.h"

#include "util/csv_cells.h"
#include "util/csv_table.h"

namespace ampbench::report {

namespace {

using train::EpochRecord;
using train::TrialRecord;

// A row of report.csv: an epoch of a trial, or the trial alone when it finished no epoch.
struct TrialRow {
  const TrialRecord* trial;
  const EpochRecord* epoch;  // null: the trial finished no epoch
  const char* purpose;
};

std::string flag(bool value) { return value ? "true" : "false"; }

// A cell of the epoch, empty on the row of a trial without one.
template <typename Cell>
std::function<std::string(const TrialRow&)> epoch_cell(Cell cell) {
  return [cell](const TrialRow& r) { return r.epoch ? cell(*r.epoch) : std::string(); };
}

std::function<std::string(const TrialRow&)> step_percentile(double q) {
  return epoch_cell(
      [q](const EpochRecord& e) { return util::optional_cell(measure::quantile(e.step_seconds, q)); });
}

const util::CsvColumns<TrialRow>& trial_columns() {
  static const util::CsvColumns<TrialRow> columns{
      {"mode", [](const TrialRow& r) { return std::string(amp::to_string(r.trial->mode)); }},
      {"trial", [](const TrialRow& r) { return std::to_string(r.trial->trial); }},
      {"epoch", epoch_cell([](const EpochRecord& e) { return std::to_string(e.epoch); })},
      {"status", [](const TrialRow& r) { return std::string(train::to_string(r.trial->status)); }},
      {"seconds", epoch_cell([](const EpochRecord& e) { return util::csv_number(e.seconds); })},
      {"timed_steps", epoch_cell([](const EpochRecord& e) { return std::to_string(e.timed_steps); })},
      {"timed_samples", epoch_cell([](const EpochRecord& e) { return std::to_string(e.timed_samples); })},
      {"samples_per_second",
       epoch_cell([](const EpochRecord& e) { return util::csv_number(e.samples_per_second); })},
      {"step_p50_s", step_percentile(0.5)},
      {"step_p90_s", step_percentile(0.9)},
      {"step_p99_s", step_percentile(0.99)},
      {"train_loss", epoch_cell([](const EpochRecord& e) { return util::csv_number(e.train_loss); })},
      {"val_loss", epoch_cell([](const EpochRecord& e) { return util::csv_number(e.val_loss); })},
      {"val_accuracy", epoch_cell([](const EpochRecord& e) { return util::csv_number(e.val_accuracy); })},
      {"val_perplexity",
       epoch_cell([](const EpochRecord& e) { return util::optional_cell(e.val_perplexity); })},
      // A skipped trial measured nothing: its peak is empty, not 0.
      {"peak_bytes",
       [](const TrialRow& r) {
         return r.trial->status == train::TrialStatus::skipped ? std::string()
                                                               : std::to_string(r.trial->memory.peak_bytes);
       }},
      {"memory_probe", [](const TrialRow& r) { return r.trial->memory.probe; }},
      {"loss_scale", epoch_cell([](const EpochRecord& e) { return util::optional_cell(e.loss_scale); })},
      {"skipped_steps",
       epoch_cell([](const EpochRecord& e) { return util::optional_cell(e.skipped_steps); })},
      {"static_bytes", [](const TrialRow& r) { return util::optional_cell(r.trial->memory.static_bytes); }},
      {"activation_peak_bytes",
       [](const TrialRow& r) { return util::optional_cell(r.trial->memory.activation_peak_bytes()); }},
      {"tf32", [](const TrialRow& r) { return flag(r.trial->tf32); }},
      {"channels_last", [](const TrialRow& r) { return flag(r.trial->channels_last); }},
      {"detail", [](const TrialRow& r) { return util::text_cell(r.trial->detail); }},
      {"purpose", [](const TrialRow& r) { return std::string(r.purpose); }},
      {"seed", [](const TrialRow& r) { return std::to_string(r.trial->seed); }},
      {"cpu_share", epoch_cell([](const EpochRecord& e) { return util::csv_number(e.cpu.cpu_share); })},
      {"run_queue_wait_share",
       epoch_cell([](const EpochRecord& e) { return util::optional_cell(e.cpu.run_queue_wait_share); })},
      {"involuntary_context_switches",
       epoch_cell([](const EpochRecord& e) { return std::to_string(e.cpu.involuntary_switches); })},
  };
  return columns;
}

void add_trial_rows(const std::vector<TrialRecord>& trials, const char* purpose,
                    std::vector<TrialRow>& rows) {
  for (const auto& t : trials) {
    for (const auto& e : t.epochs) rows.push_back({&t, &e, purpose});
    if (t.epochs.empty()) rows.push_back({&t, nullptr, purpose});
  }
}

// A row of summary.csv: a summarised mode, with the run's fidelity tolerance beside it.
struct SummaryRow {
  const ModeSummary* mode;
  double fidelity_tolerance;
};

template <typename T>
std::function<std::string(const SummaryRow&)> summary_cell(T ModeSummary::* field) {
  return [field](const SummaryRow& r) { return util::optional_cell(r.mode->*field); };
}

// The low or high end of an optional interval.
template <typename Interval>
std::string end_cell(const std::optional<Interval>& interval, bool high) {
  return interval ? util::csv_number(high ? interval->high : interval->low) : std::string();
}

const util::CsvColumns<SummaryRow>& summary_columns() {
  static const util::CsvColumns<SummaryRow> columns{
      {"mode", [](const SummaryRow& r) { return std::string(amp::to_string(r.mode->mode)); }},
      {"trials", [](const SummaryRow& r) { return std::to_string(r.mode->trials); }},
      {"samples_per_second_median",
       [](const SummaryRow& r) { return util::optional_cell(r.mode->samples_per_second.median); }},
      {"speedup_vs_fp32", summary_cell(&ModeSummary::speedup_vs_fp32)},
      {"speedup_low_95", [](const SummaryRow& r) { return end_cell(r.mode->speedup_interval, false); }},
      {"speedup_high_95", [](const SummaryRow& r) { return end_cell(r.mode->speedup_interval, true); }},
      {"speedup_vs_bf16", summary_cell(&ModeSummary::speedup_vs_bf16)},
      {"speedup_vs_bf16_low_95",
       [](const SummaryRow& r) { return end_cell(r.mode->speedup_vs_bf16_interval, false); }},
      {"speedup_vs_bf16_high_95",
       [](const SummaryRow& r) { return end_cell(r.mode->speedup_vs_bf16_interval, true); }},
      {"peak_bytes", [](const SummaryRow& r) { return std::to_string(r.mode->peak_bytes); }},
      {"memory_ratio_vs_fp32", summary_cell(&ModeSummary::memory_ratio_vs_fp32)},
      {"activation_ratio_vs_fp32", summary_cell(&ModeSummary::activation_ratio_vs_fp32)},
      {"static_bytes", [](const SummaryRow& r) { return util::optional_cell(r.mode->static_bytes); }},
      {"static_ratio_vs_fp32", summary_cell(&ModeSummary::static_ratio_vs_fp32)},
      {"static_ratio_vs_bf16", summary_cell(&ModeSummary::static_ratio_vs_bf16)},
      {"lost_update_share", summary_cell(&ModeSummary::lost_update_share)},
      {"lost_update_mass", summary_cell(&ModeSummary::lost_update_mass)},
      {"fidelity_seeds", [](const SummaryRow& r) { return std::to_string(r.mode->fidelity.seeds); }},
      {"val_loss_mean",
       [](const SummaryRow& r) { return util::optional_cell(r.mode->fidelity.val_loss.mean); }},
      {"val_loss_stddev",
       [](const SummaryRow& r) { return util::optional_cell(r.mode->fidelity.val_loss.stddev); }},
      {"val_accuracy_mean",
       [](const SummaryRow& r) { return util::optional_cell(r.mode->fidelity.val_accuracy_mean); }},
      {"noise_floor", summary_cell(&ModeSummary::fidelity_noise_floor)},
      {"paired_seeds", [](const SummaryRow& r) { return std::to_string(r.mode->fidelity.paired_seeds); }},
      {"val_loss_delta_mean",
       [](const SummaryRow& r) { return util::optional_cell(r.mode->fidelity.delta_mean); }},
      {"delta_low_95", [](const SummaryRow& r) { return end_cell(r.mode->fidelity.delta_interval, false); }},
      {"delta_high_95", [](const SummaryRow& r) { return end_cell(r.mode->fidelity.delta_interval, true); }},
      {"fidelity_tolerance", [](const SummaryRow& r) { return util::csv_number(r.fidelity_tolerance); }},
      {"fidelity",
       [](const SummaryRow& r) {
         const auto& verdict = r.mode->fidelity.verdict;
         return verdict ? std::string(to_string(*verdict)) : std::string();
       }},
      {"seeds_needed",
       [](const SummaryRow& r) { return util::optional_cell(r.mode->fidelity.seeds_needed); }},
      {"low_precision_flop_share", summary_cell(&ModeSummary::low_precision_flop_share)},
      {"cpu_share", summary_cell(&ModeSummary::cpu_share)},
      {"run_queue_wait_share_max", summary_cell(&ModeSummary::run_queue_wait_share)},
  };
  return columns;
}

}  // namespace

std::string to_csv(const RunReport& report) {
  std::vector<TrialRow> rows;
  add_trial_rows(report.measured.trials, "timed", rows);
  add_trial_rows(report.measured.fidelity_trials, "fidelity", rows);
  return util::render_csv(trial_columns(), rows);
}

std::string csv_columns() { return util::csv_header(trial_columns()); }

std::string to_summary_csv(const RunReport& report) {
  std::vector<SummaryRow> rows;
  for (const auto& s : report.summary) rows.push_back({&s, report.context.fidelity_tolerance});
  return util::render_csv(summary_columns(), rows);
}

std::string summary_csv_columns() { return util::csv_header(summary_columns()); }

}  // namespace ampbench::report
