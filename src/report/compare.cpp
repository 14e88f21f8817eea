#include "report/compare.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <sstream>

#include "report/report.h"
#include "report/text_table.h"
#include "util/json_reader.h"

namespace ampbench::report {
namespace {

struct ModeFigures {
  std::string mode;
  double samples_per_second;
  int64_t peak_bytes;
  double val_loss;
};

struct ReportFigures {
  std::string config_hash;
  std::string model;
  bool complete = true;
  std::string stopped_by;
  std::vector<ModeFigures> modes;
  // For each mode with a trial that did not finish: that trial's status, and its detail when it has one.
  std::map<std::string, std::string> unfinished;
};

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

// Reads just what a comparison needs, strictly, so a file that is not an ampbench report gets a clear
// error naming where it differs.
ReportFigures read_figures(const nlohmann::json& document, const std::string& name) {
  // A report from a newer ampbench is a report all the same: say so, not that it is none.
  if (document.is_object() && document.contains("schema_version") &&
      document["schema_version"].is_number_integer() &&
      document["schema_version"].get<int64_t>() > kSchemaVersion) {
    throw util::InputError(name, "schema version " + document["schema_version"].dump() +
                                     " is newer than this ampbench reads (1 to " +
                                     std::to_string(kSchemaVersion) + "): update ampbench to compare it");
  }
  try {
    util::ObjectReader root(document, "");
    ReportFigures out;
    // Every version has the few figures a comparison reads, so a stored baseline stays comparable.
    root.required_integer("schema_version", 1);
    out.config_hash = root.object("environment").required_string("config_hash");
    out.model = root.object("config").object("model").required_string("type");
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
      util::ObjectReader mode(summary[i], "/summary/" + std::to_string(i));
      ModeFigures f;
      f.mode = mode.required_string("mode");
      auto rate = mode.object("samples_per_second");
      if (!rate.has("median") || !summary[i]["samples_per_second"]["median"].is_number()) {
        throw util::InputError(rate.path_of("median"), "expected a number");
      }
      f.samples_per_second = summary[i]["samples_per_second"]["median"].get<double>();
      f.peak_bytes = mode.required_integer("peak_bytes", 0);
      if (!summary[i].contains("val_loss") || !summary[i]["val_loss"].is_number()) {
        throw util::InputError(mode.path_of("val_loss"), "expected a number");
      }
      f.val_loss = summary[i]["val_loss"].get<double>();
      out.modes.push_back(f);
    }
    return out;
  } catch (const util::InputError& e) {
    throw util::InputError(name, std::string("not an ampbench report: ") + e.what());
  } catch (const nlohmann::json::exception&) {
    throw util::InputError(name, "not an ampbench report: /summary is missing");
  }
}

std::string format(const char* pattern, double value) {
  char text[64];
  std::snprintf(text, sizeof text, pattern, value);
  return text;
}

TextRows rows(const Comparison& c) {
  TextRows out{{"mode", "base samples/s", "new samples/s", "slowdown", "base peak", "new peak",
                "memory change", "base val loss", "new val loss", "verdict"}};
  for (const auto& m : c.modes) {
    if (m.unfinished_in_new) {
      out.push_back({m.mode, format("%.1f", m.base_samples_per_second), "-", "-",
                     format("%.1f MiB", double(m.base_peak_bytes) / 1048576.0), "-", "-",
                     format("%.4f", m.base_val_loss), "-", "REGRESSION"});
      continue;
    }
    out.push_back({m.mode, format("%.1f", m.base_samples_per_second),
                   format("%.1f", m.new_samples_per_second), format("%+.1f%%", 100.0 * m.slowdown),
                   format("%.1f MiB", double(m.base_peak_bytes) / 1048576.0),
                   format("%.1f MiB", double(m.new_peak_bytes) / 1048576.0),
                   m.memory_increase ? format("%+.1f%%", 100.0 * *m.memory_increase) : "-",
                   format("%.4f", m.base_val_loss), format("%.4f", m.new_val_loss),
                   m.regressions.empty() ? "ok" : "REGRESSION"});
  }
  return out;
}

}  // namespace

bool Comparison::regressed() const {
  if (new_incomplete) return true;
  for (const auto& m : modes) {
    if (!m.regressions.empty()) return true;
  }
  return false;
}

Comparison compare_reports(const nlohmann::json& base, const nlohmann::json& next,
                           const CompareLimits& limits, bool force, const std::string& base_name,
                           const std::string& new_name) {
  auto a = read_figures(base, base_name);
  auto b = read_figures(next, new_name);
  if (!force && (a.config_hash != b.config_hash || a.model != b.model)) {
    const auto models = a.model != b.model ? "model " + b.model + " vs " + a.model + ", " : std::string();
    throw util::InputError(new_name, "comes from a different experiment than " + base_name + " (" + models +
                                         "config " + b.config_hash + " vs " + a.config_hash +
                                         "); use --force to compare anyway");
  }
  Comparison comparison;
  if (!b.complete) {
    comparison.new_incomplete = new_name + " is a partial report: its run was stopped" +
                                (b.stopped_by.empty() ? "" : " by " + b.stopped_by);
  }
  for (const auto& x : a.modes) {
    auto y =
        std::find_if(b.modes.begin(), b.modes.end(), [&](const ModeFigures& f) { return f.mode == x.mode; });
    ModeComparison m;
    m.mode = x.mode;
    m.base_samples_per_second = x.samples_per_second;
    m.base_peak_bytes = x.peak_bytes;
    m.base_val_loss = x.val_loss;
    if (y == b.modes.end()) {
      const auto why = b.unfinished.find(x.mode);
      m.unfinished_in_new = why != b.unfinished.end() ? why->second : "not run";
      m.regressions.push_back(m.mode + ": no figures in " + new_name + " (" + *m.unfinished_in_new + ")");
      comparison.modes.push_back(m);
      continue;
    }
    m.new_samples_per_second = y->samples_per_second;
    m.slowdown = x.samples_per_second > 0 ? 1.0 - y->samples_per_second / x.samples_per_second : 0.0;
    m.new_peak_bytes = y->peak_bytes;
    if (x.peak_bytes > 0) m.memory_increase = double(y->peak_bytes) / double(x.peak_bytes) - 1.0;
    m.new_val_loss = y->val_loss;
    // Its figures come from the trials that finished: one that did not is a regression of its own.
    if (const auto why = b.unfinished.find(x.mode); why != b.unfinished.end()) {
      m.regressions.push_back(m.mode + ": a trial in " + new_name + " did not finish (" + why->second + ")");
    }
    if (limits.max_slowdown && m.slowdown > *limits.max_slowdown) {
      m.regressions.push_back(m.mode + format(": %.1f%% slower", 100.0 * m.slowdown) +
                              format(", limit %.1f%%", 100.0 * *limits.max_slowdown));
    }
    if (limits.max_memory_increase && m.memory_increase && *m.memory_increase > *limits.max_memory_increase) {
      m.regressions.push_back(m.mode + format(": peak memory %.1f%% higher", 100.0 * *m.memory_increase) +
                              format(", limit %.1f%%", 100.0 * *limits.max_memory_increase));
    }
    double loss_increase = m.new_val_loss - m.base_val_loss;
    if (limits.max_val_loss_increase && loss_increase > *limits.max_val_loss_increase) {
      m.regressions.push_back(m.mode + format(": val loss up by %.4f", loss_increase) +
                              format(", limit %.4f", *limits.max_val_loss_increase));
    }
    comparison.modes.push_back(m);
  }
  return comparison;
}

std::string comparison_to_console(const Comparison& comparison) {
  std::ostringstream out;
  out << render_aligned(rows(comparison));
  if (comparison.new_incomplete) out << "regression: " << *comparison.new_incomplete << "\n";
  for (const auto& m : comparison.modes) {
    for (const auto& r : m.regressions) out << "regression: " << r << "\n";
  }
  return out.str();
}

std::string comparison_to_markdown(const Comparison& comparison) {
  std::ostringstream out;
  out << "### ampbench compare\n\n" << render_markdown_table(rows(comparison));
  if (comparison.new_incomplete) out << "\n- **regression**: " << *comparison.new_incomplete;
  for (const auto& m : comparison.modes) {
    for (const auto& r : m.regressions) out << "\n- **regression**: " << r;
  }
  out << "\n";
  return out.str();
}

}  // namespace ampbench::report
