#include "report/compare_reader.h"

#include "measure/statistics.h"
#include "report/report.h"
#include "report/summary.h"
#include "util/json_reader.h"

namespace ampbench::report {
namespace {

using util::InputError;

// The first unfinished trial of each mode, from the report's "trials" array.
std::map<std::string, std::string> read_unfinished_trials(const nlohmann::json& document) {
  if (!document.contains("trials") || !document["trials"].is_array()) {
    throw InputError("/trials", "expected an array");
  }
  const auto& trials = document["trials"];
  std::map<std::string, std::string> out;
  for (size_t i = 0; i < trials.size(); ++i) {
    util::ObjectReader trial(trials[i], "/trials/" + std::to_string(i));
    const auto mode = trial.required_string("mode");
    const auto status = trial.required_string("status");
    if (status == train::to_string(train::TrialStatus::ok) || out.contains(mode)) continue;
    const auto& detail = trials[i].contains("detail") ? trials[i]["detail"] : nlohmann::json();
    out[mode] = detail.is_string() ? status + ": " + detail.get<std::string>() : status;
  }
  return out;
}

bool is_finished(const nlohmann::json& trial, const std::string& mode) {
  return trial.is_object() && trial.value("mode", "") == mode && trial.value("status", "") == "ok" &&
         trial.contains("epochs") && trial["epochs"].is_array() && !trial["epochs"].empty();
}

// A report before version 7 has no summary[].trials_compared: the rate of a trial is found again from its
// epochs, by the summary's own rule; empty when the trial lacks the figures.
std::optional<double> trial_rate(const nlohmann::json& epochs) {
  double samples = 0, seconds = 0;
  for (size_t i = first_compared_epoch(epochs.size()); i < epochs.size(); ++i) {
    const auto& e = epochs[i];
    if (!e.is_object() || !e.contains("seconds") || !e["seconds"].is_number() ||
        !e.contains("timed_samples") || !e["timed_samples"].is_number())
      return std::nullopt;
    samples += e["timed_samples"].get<double>();
    seconds += e["seconds"].get<double>();
  }
  if (seconds <= 0) return std::nullopt;
  return samples / seconds;
}

std::optional<double> final_val_loss(const nlohmann::json& trial) {
  const auto& last = trial["epochs"].back();
  if (!last.is_object() || !last.contains("val_loss") || !last["val_loss"].is_number()) return std::nullopt;
  return last["val_loss"].get<double>();
}

std::optional<uint64_t> seed_of(const nlohmann::json& trial) {
  if (!trial.contains("seed") || !trial["seed"].is_number_unsigned()) return std::nullopt;
  return trial["seed"].get<uint64_t>();
}

// The rates the summary wrote for each trial (version 7 on).
std::vector<double> read_trials_compared(const nlohmann::json& entry, const std::string& path) {
  std::vector<double> rates;
  const auto& compared = entry["trials_compared"];
  if (!compared.is_array()) throw InputError(path + "/trials_compared", "expected an array");
  for (size_t i = 0; i < compared.size(); ++i) {
    util::ObjectReader trial(compared[i], path + "/trials_compared/" + std::to_string(i));
    if (!trial.is_number("samples_per_second"))
      throw InputError(trial.path_of("samples_per_second"), "expected a number");
    rates.push_back(trial.number("samples_per_second", 0.0, 0.0, 1e300));
  }
  return rates;
}

// The per-trial rates (where the summary did not write them) and the per-seed losses of one mode.
void read_trial_figures(const nlohmann::json& document, ModeFigures& f, bool rates_known) {
  std::vector<double> timed_losses;
  std::optional<uint64_t> timed_seed;
  for (const auto& t : document["trials"]) {
    if (!is_finished(t, f.mode)) continue;
    if (auto rate = trial_rate(t["epochs"]); rate && !rates_known) f.trial_rates.push_back(*rate);
    if (auto loss = final_val_loss(t)) timed_losses.push_back(*loss);
    timed_seed = seed_of(t);
  }
  // Reports before version 5 name no seed: their timed trials stand for one seed of their own.
  if (!timed_losses.empty()) f.val_loss_by_seed[timed_seed.value_or(0)] = *measure::median(timed_losses);
  if (!document.contains("fidelity_trials") || !document["fidelity_trials"].is_array()) return;
  for (const auto& t : document["fidelity_trials"]) {
    if (!is_finished(t, f.mode)) continue;
    const auto loss = final_val_loss(t);
    const auto seed = seed_of(t);
    if (loss && seed) f.val_loss_by_seed[*seed] = *loss;
  }
}

ModeFigures read_mode(const nlohmann::json& entry, const std::string& path) {
  util::ObjectReader mode(entry, path);
  ModeFigures f;
  f.mode = mode.required_string("mode");
  auto rate = mode.object("samples_per_second");
  if (!rate.has("median") || !entry["samples_per_second"]["median"].is_number()) {
    throw InputError(rate.path_of("median"), "expected a number");
  }
  f.samples_per_second = entry["samples_per_second"]["median"].get<double>();
  f.peak_bytes = mode.required_integer("peak_bytes", 0);
  if (!entry.contains("val_loss") || !entry["val_loss"].is_number()) {
    throw InputError(mode.path_of("val_loss"), "expected a number");
  }
  f.val_loss = entry["val_loss"].get<double>();
  if (entry.contains("trials_compared")) f.trial_rates = read_trials_compared(entry, path);
  return f;
}

ReportFigures read_strictly(const nlohmann::json& document) {
  util::ObjectReader root(document, "");
  ReportFigures out;
  root.required_integer("schema_version", 1);
  out.config_hash = root.object("environment").required_string("config_hash");
  auto config = root.object("config");
  out.model = config.object("model").required_string("type");
  out.fidelity_tolerance = config.object("precision").number("fidelity_tolerance", 0.05, 0.0, 1e6);
  if (!document.contains("complete") || !document["complete"].is_boolean()) {
    throw InputError("/complete", "expected true or false");
  }
  out.complete = document["complete"].get<bool>();
  if (document.contains("stopped_by") && document["stopped_by"].is_string()) {
    out.stopped_by = document["stopped_by"].get<std::string>();
  }
  out.unfinished = read_unfinished_trials(document);
  const auto& summary = document.at("summary");
  if (!summary.is_array()) throw InputError("/summary", "expected an array");
  for (size_t i = 0; i < summary.size(); ++i) {
    auto f = read_mode(summary[i], "/summary/" + std::to_string(i));
    read_trial_figures(document, f, summary[i].contains("trials_compared"));
    out.modes.push_back(std::move(f));
  }
  return out;
}

}  // namespace

ReportFigures read_report_figures(const nlohmann::json& document, const std::string& name) {
  // A report from a newer ampbench is a report all the same: say so, not that it is none.
  if (document.is_object() && document.contains("schema_version") &&
      document["schema_version"].is_number_integer() &&
      document["schema_version"].get<int64_t>() > kSchemaVersion) {
    throw InputError(name, "schema version " + document["schema_version"].dump() +
                               " is newer than this ampbench reads (1 to " + std::to_string(kSchemaVersion) +
                               "): update ampbench to compare it");
  }
  try {
    return read_strictly(document);
  } catch (const InputError& e) {
    throw InputError(name, std::string("not an ampbench report: ") + e.what());
  } catch (const nlohmann::json::exception&) {
    throw InputError(name, "not an ampbench report: /summary is missing");
  }
}

}  // namespace ampbench::report
