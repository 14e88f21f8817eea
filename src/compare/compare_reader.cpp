#include "compare/compare_reader.h"

#include "amp/precision_mode.h"
#include "measure/statistics.h"
#include "report/report.h"
#include "report/summary.h"
#include "util/json_reader.h"

namespace ampbench::compare {
namespace {

// The bounds a measured figure must lie in to be compared: a rate or a time of 0, a negative count, or
// one so large that sums of it overflow would make any change look like none.
constexpr double kMaxFigure = 1e15;

// The first unfinished trial of each mode, from the report's "trials" array.
std::map<std::string, std::string> read_unfinished_trials(const nlohmann::json& document) {
  if (!document.contains("trials") || !document["trials"].is_array()) {
    throw util::InputError("/trials", "expected an array");
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
// epochs, by the summary's own rule; each epoch's time and samples must be there and in range.
double trial_rate(const nlohmann::json& epochs, const std::string& path) {
  double samples = 0, seconds = 0;
  for (size_t i = report::first_compared_epoch(epochs.size()); i < epochs.size(); ++i) {
    util::ObjectReader epoch(epochs[i], path + "/" + std::to_string(i));
    samples += epoch.number("timed_samples", 0.0, 1.0, kMaxFigure);
    seconds += epoch.number("seconds", 0.0, 0.0, kMaxFigure, /*exclusive_min=*/true);
  }
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
  if (!compared.is_array()) throw util::InputError(path + "/trials_compared", "expected an array");
  for (size_t i = 0; i < compared.size(); ++i) {
    util::ObjectReader trial(compared[i], path + "/trials_compared/" + std::to_string(i));
    if (!trial.is_number("samples_per_second"))
      throw util::InputError(trial.path_of("samples_per_second"), "expected a number");
    rates.push_back(trial.number("samples_per_second", 0.0, 0.0, kMaxFigure, /*exclusive_min=*/true));
  }
  return rates;
}

// The per-trial rates (where the summary did not write them) and the per-seed losses of one mode.
void read_trial_figures(const nlohmann::json& document, ModeFigures& f, bool rates_known) {
  std::vector<double> timed_losses;
  std::optional<uint64_t> timed_seed;
  const auto& trials = document["trials"];
  for (size_t i = 0; i < trials.size(); ++i) {
    const auto& t = trials[i];
    if (!is_finished(t, f.mode)) continue;
    if (!rates_known)
      f.trial_rates.push_back(trial_rate(t["epochs"], "/trials/" + std::to_string(i) + "/epochs"));
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
  // A name no mode has would be compared with nothing: a tampered report.
  const auto parsed = amp::parse_precision_mode(f.mode);
  if (!parsed) throw util::InputError(mode.path_of("mode"), "is not a precision mode");
  f.emulated = mode.boolean("emulated", amp::recipe_of(*parsed).emulated);
  auto rate = mode.object("samples_per_second");
  if (!rate.is_number("median")) throw util::InputError(rate.path_of("median"), "expected a number");
  f.samples_per_second = rate.number("median", 0.0, 0.0, kMaxFigure, /*exclusive_min=*/true);
  f.peak_bytes = mode.required_integer("peak_bytes", 1);
  if (!mode.is_number("val_loss")) throw util::InputError(mode.path_of("val_loss"), "expected a number");
  f.val_loss = mode.number("val_loss", 0.0, 0.0, kMaxFigure);
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
    throw util::InputError("/complete", "expected true or false");
  }
  out.complete = document["complete"].get<bool>();
  if (document.contains("stopped_by") && document["stopped_by"].is_string()) {
    out.stopped_by = document["stopped_by"].get<std::string>();
  }
  out.unfinished = read_unfinished_trials(document);
  const auto& summary = document.at("summary");
  if (!summary.is_array()) throw util::InputError("/summary", "expected an array");
  for (size_t i = 0; i < summary.size(); ++i) {
    const auto path = "/summary/" + std::to_string(i);
    auto f = read_mode(summary[i], path);
    // Modes are matched by name: a second entry of one mode would be compared with the first's figures.
    for (size_t j = 0; j < out.modes.size(); ++j) {
      if (out.modes[j].mode == f.mode)
        throw util::InputError(path + "/mode",
                               f.mode + " is summarised twice (also at /summary/" + std::to_string(j) + ")");
    }
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
      document["schema_version"].get<int64_t>() > report::kSchemaVersion) {
    throw util::InputError(name, "schema version " + document["schema_version"].dump() +
                                     " is newer than this ampbench reads (1 to " +
                                     std::to_string(report::kSchemaVersion) +
                                     "): update ampbench to compare it");
  }
  try {
    return read_strictly(document);
  } catch (const util::InputError& e) {
    throw util::InputError(name, std::string("not an ampbench report: ") + e.what());
  } catch (const nlohmann::json::exception&) {
    throw util::InputError(name, "not an ampbench report: /summary is missing");
  }
}

}  // namespace ampbench::compare
