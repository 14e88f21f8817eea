#include "render/csv_report.h"

#include "report/summary_fields.h"
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

std::string join(const std::vector<std::string>& cells) {
  std::string line;
  for (size_t i = 0; i < cells.size(); ++i) {
    if (i) line += ',';
    line += cells[i];
  }
  return line;
}

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

}  // namespace

std::string to_csv(const RunReport& report) {
  std::vector<TrialRow> rows;
  add_trial_rows(report.measured.trials, "timed", rows);
  add_trial_rows(report.measured.fidelity_trials, "fidelity", rows);
  return util::render_csv(trial_columns(), rows);
}

// summary.csv: a row per summarised mode, its columns those of the summary's fields (summary_fields.h).
std::string to_summary_csv(const RunReport& report) {
  std::string out = join(summary_csv_header()) + "\n";
  for (const auto& s : report.summary) out += join(summary_csv_cells(s)) + "\n";
  return out;
}

}  // namespace ampbench::report
