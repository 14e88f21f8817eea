#include "compare/compare.h"

#include <algorithm>

#include "amp/precision_mode.h"
#include "compare/compare_reader.h"
#include "measure/equivalence.h"
#include "util/enum_names.h"
#include "util/text_table.h"

namespace ampbench::compare {
namespace {

constexpr util::EnumNames<ChangeVerdict, 5> kVerdictNames{{{ChangeVerdict::ok, "ok"},
                                                           {ChangeVerdict::regression, "regression"},
                                                           {ChangeVerdict::within_noise, "within_noise"},
                                                           {ChangeVerdict::unjudged, "unjudged"},
                                                           {ChangeVerdict::emulated, "emulated"}}};

ChangeVerdict judge(const Change& c, bool exact) {
  if (c.change <= c.limit.value) return ChangeVerdict::ok;
  if (exact) return ChangeVerdict::regression;
  if (!c.interval) return ChangeVerdict::unjudged;
  return c.interval->low > 0 ? ChangeVerdict::regression : ChangeVerdict::within_noise;
}

Change with_limit(Change c, Limit limit, bool exact) {
  c.limit = limit;
  c.verdict = judge(c, exact);
  return c;
}

// Judged on the trials' rates: the change in their medians, and a bootstrap interval of its ratio.
Change speed_change(const ModeFigures& a, const ModeFigures& b, Limit limit) {
  Change c;
  const bool per_trial = !a.trial_rates.empty() && !b.trial_rates.empty();
  c.base = per_trial ? *measure::median(a.trial_rates) : a.samples_per_second;
  c.next = per_trial ? *measure::median(b.trial_rates) : b.samples_per_second;
  c.change = c.base > 0 ? 1.0 - c.next / c.base : 0.0;
  c.base_samples = std::max<int64_t>(1, int64_t(a.trial_rates.size()));
  c.new_samples = std::max<int64_t>(1, int64_t(b.trial_rates.size()));
  if (auto ratio = measure::bootstrap_ratio_of_medians(b.trial_rates, a.trial_rates))
    c.interval = measure::Interval{1.0 - ratio->high, 1.0 - ratio->low};
  return with_limit(c, limit, false);
}

Change memory_change(const ModeFigures& a, const ModeFigures& b, Limit limit) {
  Change c;
  c.base = double(a.peak_bytes);
  c.next = double(b.peak_bytes);
  c.change = a.peak_bytes > 0 ? c.next / c.base - 1.0 : 0.0;
  c.base_samples = c.new_samples = 1;
  return with_limit(c, limit, true);
}

// Paired over the seeds both reports trained (the same config: the same seeds), with a t interval of the
// mean difference; one seed: the difference alone.
Change val_loss_change(const ModeFigures& a, const ModeFigures& b, Limit limit) {
  std::vector<double> differences;
  for (const auto& [seed, loss] : a.val_loss_by_seed) {
    if (auto other = b.val_loss_by_seed.find(seed); other != b.val_loss_by_seed.end())
      differences.push_back(other->second - loss);
  }
  if (differences.empty()) differences.push_back(b.val_loss - a.val_loss);
  const auto judged = measure::judge_equivalence(differences, limit.value);
  Change c;
  c.base = a.val_loss;
  c.next = b.val_loss;
  c.change = judged.mean_difference;
  c.interval = judged.interval;
  c.base_samples = c.new_samples = judged.samples;
  return with_limit(c, limit, false);
}

// A change past its limit, in a line: what changed, the limit, the interval it was judged on, and for an
// undecided one why and what would decide it.
std::string describe(const std::string& what, const Change& c, ChangeShown show, const std::string& spread) {
  std::string text =
      what + ", limit " + limit_text(show, c.limit.value) + (c.limit.is_default ? " (default)" : "");
  if (c.interval) {
    text += " (95% CI " + show(c.interval->low) + " to " + show(c.interval->high) + " over " +
            std::to_string(c.base_samples) + " and " + std::to_string(c.new_samples) + " " + spread + ")";
  }
  if (c.verdict == ChangeVerdict::within_noise)
    return text + ": within the noise, so not judged a regression; more " + spread + " would decide";
  if (c.verdict == ChangeVerdict::unjudged)
    return text + ": with one of the " + spread +
           " on a side, noise cannot be told from change; rerun both " + "with more " + spread;
  return text;
}

void record(ModeComparison& m, const Change& c, const std::string& line) {
  if (c.verdict != ChangeVerdict::ok) m.findings.push_back({c.verdict, m.mode + ": " + line});
}

void judge_mode(const ModeFigures& a, const ModeFigures& b, const Comparison& in_force, ModeComparison& m) {
  m.speed = speed_change(a, b, in_force.max_slowdown);
  m.memory = memory_change(a, b, in_force.max_memory_increase);
  m.val_loss = val_loss_change(a, b, in_force.max_val_loss_increase);
  if (a.emulated || b.emulated) {
    m.speed.verdict = ChangeVerdict::emulated;
  } else {
    record(m, m.speed,
           describe(util::format_number("%.1f%% slower", 100.0 * m.speed.change), m.speed, percent_text,
                    "trials"));
  }
  record(m, m.memory,
         describe(util::format_number("peak memory %.1f%% higher", 100.0 * m.memory.change), m.memory,
                  percent_text, ""));
  record(m, m.val_loss,
         describe(util::format_number("val loss up by %.4f", m.val_loss.change), m.val_loss, loss_text,
                  "seeds"));
}

// A mode BASE has figures for and NEW has none: a regression, whatever the limits.
ModeComparison unfinished_mode(const ModeFigures& x, const ReportFigures& b, const std::string& new_name) {
  ModeComparison m;
  m.mode = x.mode;
  m.speed.base = x.samples_per_second;
  m.memory.base = double(x.peak_bytes);
  m.val_loss.base = x.val_loss;
  const auto why = b.unfinished.find(x.mode);
  m.unfinished_in_new = why != b.unfinished.end() ? why->second : "not run";
  m.findings.push_back({ChangeVerdict::regression,
                        m.mode + ": no figures in " + new_name + " (" + *m.unfinished_in_new + ")"});
  return m;
}

Limit limit_or(const std::optional<double>& given, double fallback) {
  return given ? Limit{*given, false} : Limit{fallback, true};
}

void check_same_experiment(const ReportFigures& a, const ReportFigures& b, const Comparison& c) {
  if (a.config_hash == b.config_hash && a.model == b.model) return;
  const auto models = a.model != b.model ? "model " + b.model + " vs " + a.model + ", " : std::string();
  throw util::InputError(c.new_name, "comes from a different experiment than " + c.base_name + " (" + models +
                                         "config " + b.config_hash + " vs " + a.config_hash +
                                         "); use --force to compare anyway");
}

}  // namespace

std::string_view to_string(ChangeVerdict verdict) { return util::name_of(kVerdictNames, verdict); }

std::string percent_text(double fraction) { return util::format_number("%+.1f%%", 100.0 * fraction); }
std::string loss_text(double value) { return util::format_number("%+.4f", value); }

std::string limit_text(ChangeShown show, double value) {
  auto text = show(value);
  if (!text.empty() && text.front() == '+') text.erase(0, 1);
  return text;
}

ChangeVerdict Comparison::verdict() const {
  if (new_incomplete) return ChangeVerdict::regression;
  for (auto gravest : {ChangeVerdict::regression, ChangeVerdict::unjudged, ChangeVerdict::within_noise}) {
    for (const auto& m : modes) {
      if (std::any_of(m.findings.begin(), m.findings.end(),
                      [&](const Finding& f) { return f.verdict == gravest; }))
        return gravest;
    }
  }
  return ChangeVerdict::ok;
}

Comparison compare_reports(const nlohmann::json& base, const nlohmann::json& next,
                           const CompareLimits& limits, bool force, const std::string& base_name,
                           const std::string& new_name) {
  const auto a = read_report_figures(base, base_name);
  const auto b = read_report_figures(next, new_name);
  // A report whose run measured nothing (every mode diverged, ran out of memory, failed or was skipped) is a
  // report all the same: as NEW each of BASE's modes lacks its figures there, a regression; as BASE it gives
  // nothing to judge against.
  if (a.modes.empty())
    throw util::InputError(base_name,
                           "is the report of a run that measured nothing (no mode finished a timed "
                           "trial: see its warnings), so it is no baseline to compare with");
  Comparison comparison;
  comparison.base_name = base_name;
  comparison.new_name = new_name;
  if (!force) check_same_experiment(a, b, comparison);
  if (!b.complete) {
    comparison.new_incomplete = new_name + " is a partial report: its run was stopped" +
                                (b.stopped_by.empty() ? "" : " by " + b.stopped_by);
  }
  comparison.max_slowdown = limit_or(limits.max_slowdown, kDefaultMaxSlowdown);
  comparison.max_memory_increase = limit_or(limits.max_memory_increase, kDefaultMaxMemoryIncrease);
  comparison.max_val_loss_increase = limit_or(limits.max_val_loss_increase, a.fidelity_tolerance);
  for (const auto& x : a.modes) {
    auto y =
        std::find_if(b.modes.begin(), b.modes.end(), [&](const ModeFigures& f) { return f.mode == x.mode; });
    if (y == b.modes.end()) {
      comparison.modes.push_back(unfinished_mode(x, b, new_name));
      continue;
    }
    ModeComparison m;
    m.mode = x.mode;
    // Its figures come from the trials that finished: one that did not is a regression of its own.
    if (const auto why = b.unfinished.find(x.mode); why != b.unfinished.end())
      m.findings.push_back({ChangeVerdict::regression,
                            m.mode + ": a trial in " + new_name + " did not finish (" + why->second + ")"});
    judge_mode(x, *y, comparison, m);
    comparison.modes.push_back(m);
  }
  return comparison;
}

}  // namespace ampbench::compare
