#include "report/compare.h"

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "measure/equivalence.h"
#include "report/compare_reader.h"
#include "report/text_table.h"
#include "util/enum_names.h"

namespace ampbench::report {
namespace {

constexpr util::EnumNames<ChangeVerdict, 4> kVerdictNames{{{ChangeVerdict::ok, "ok"},
                                                           {ChangeVerdict::regression, "regression"},
                                                           {ChangeVerdict::within_noise, "within_noise"},
                                                           {ChangeVerdict::unjudged, "unjudged"}}};

std::string format(const char* pattern, double value) {
  char text[64];
  std::snprintf(text, sizeof text, pattern, value);
  return text;
}

struct Limit {
  double value;
  bool is_default;
};

ChangeVerdict judge(const Change& c, bool exact) {
  if (c.change <= c.limit) return ChangeVerdict::ok;
  if (exact) return ChangeVerdict::regression;
  if (!c.interval) return ChangeVerdict::unjudged;
  return c.interval->low > 0 ? ChangeVerdict::regression : ChangeVerdict::within_noise;
}

Change with_limit(Change c, Limit limit, bool exact) {
  c.limit = limit.value;
  c.default_limit = limit.is_default;
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

using Show = std::string (*)(double);
std::string percent(double fraction) { return format("%+.1f%%", 100.0 * fraction); }
std::string loss(double value) { return format("%+.4f", value); }

// A limit is a size, not a change: shown without its sign.
std::string unsigned_text(Show show, double value) {
  auto text = show(value);
  if (!text.empty() && text.front() == '+') text.erase(0, 1);
  return text;
}

// A change past its limit, in a line: what changed, the limit, the interval it was judged on, and for an
// undecided one why and what would decide it.
std::string describe(const std::string& what, const Change& c, Show show, const std::string& spread) {
  std::string text = what + ", limit " + unsigned_text(show, c.limit) + (c.default_limit ? " (default)" : "");
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
  if (c.verdict == ChangeVerdict::regression) m.regressions.push_back(m.mode + ": " + line);
  if (c.verdict == ChangeVerdict::within_noise || c.verdict == ChangeVerdict::unjudged)
    m.undecided.push_back(m.mode + ": " + line);
}

void judge_mode(const ModeFigures& a, const ModeFigures& b, const Limit (&limits)[3], ModeComparison& m) {
  m.speed = speed_change(a, b, limits[0]);
  m.memory = memory_change(a, b, limits[1]);
  m.val_loss = val_loss_change(a, b, limits[2]);
  record(m, m.speed, describe(format("%.1f%% slower", 100.0 * m.speed.change), m.speed, percent, "trials"));
  record(m, m.memory,
         describe(format("peak memory %.1f%% higher", 100.0 * m.memory.change), m.memory, percent, ""));
  record(m, m.val_loss,
         describe(format("val loss up by %.4f", m.val_loss.change), m.val_loss, loss, "seeds"));
}

std::string verdict_cell(const Change& c) {
  switch (c.verdict) {
    case ChangeVerdict::ok:
      return "ok";
    case ChangeVerdict::regression:
      return "REGRESSION";
    case ChangeVerdict::within_noise:
      return "noise";
    case ChangeVerdict::unjudged:
      break;
  }
  return "UNJUDGED";
}

std::string change_cell(const Change& c, Show show) {
  std::string text = show(c.change);
  if (c.interval) text += " [" + show(c.interval->low) + ", " + show(c.interval->high) + "]";
  return text;
}

std::string mebibytes(double bytes) { return format("%.1f MiB", bytes / 1048576.0); }

TextRows rows(const Comparison& c) {
  TextRows out{{"mode", "base samples/s", "new samples/s", "slowdown [95% CI]", "speed", "base peak",
                "new peak", "memory change", "memory", "base val loss", "new val loss",
                "val loss change [95% CI]", "val loss"}};
  for (const auto& m : c.modes) {
    if (m.unfinished_in_new) {
      out.push_back({m.mode, format("%.1f", m.speed.base), "-", "-", "REGRESSION", mebibytes(m.memory.base),
                     "-", "-", "-", format("%.4f", m.val_loss.base), "-", "-", "-"});
      continue;
    }
    out.push_back({m.mode, format("%.1f", m.speed.base), format("%.1f", m.speed.next),
                   change_cell(m.speed, percent), verdict_cell(m.speed), mebibytes(m.memory.base),
                   mebibytes(m.memory.next), m.memory.base > 0 ? percent(m.memory.change) : "-",
                   verdict_cell(m.memory), format("%.4f", m.val_loss.base), format("%.4f", m.val_loss.next),
                   change_cell(m.val_loss, loss), verdict_cell(m.val_loss)});
  }
  return out;
}

// The limits in force, said once under the table.
std::string limits_line(const Comparison& c) {
  if (c.modes.empty()) return "no mode to compare";
  const auto& m = c.modes.front();
  auto said = [](const Change& x, Show show, const char* otherwise) {
    return unsigned_text(show, x.limit) +
           (x.default_limit ? std::string(" (") + otherwise + ")" : std::string());
  };
  return "limits: slowdown " + said(m.speed, percent, "default") + ", peak memory " +
         said(m.memory, percent, "default") + ", val loss " +
         said(m.val_loss, loss, "BASE's fidelity tolerance") +
         "; a change past its limit is a regression when its 95% interval excludes no change (memory: "
         "exactly)";
}

Limit limit_or(const std::optional<double>& given, double fallback) {
  return given ? Limit{*given, false} : Limit{fallback, true};
}

}  // namespace

std::string_view to_string(ChangeVerdict verdict) { return util::name_of(kVerdictNames, verdict); }

bool Comparison::regressed() const {
  if (new_incomplete) return true;
  return std::any_of(modes.begin(), modes.end(),
                     [](const ModeComparison& m) { return !m.regressions.empty(); });
}

bool Comparison::unjudged() const {
  auto any = [](const ModeComparison& m) {
    return m.speed.verdict == ChangeVerdict::unjudged || m.val_loss.verdict == ChangeVerdict::unjudged;
  };
  return std::any_of(modes.begin(), modes.end(), any);
}

Comparison compare_reports(const nlohmann::json& base, const nlohmann::json& next,
                           const CompareLimits& limits, bool force, const std::string& base_name,
                           const std::string& new_name) {
  const auto a = read_report_figures(base, base_name);
  const auto b = read_report_figures(next, new_name);
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
  const Limit in_force[3] = {limit_or(limits.max_slowdown, kDefaultMaxSlowdown),
                             limit_or(limits.max_memory_increase, kDefaultMaxMemoryIncrease),
                             limit_or(limits.max_val_loss_increase, a.fidelity_tolerance)};
  for (const auto& x : a.modes) {
    auto y =
        std::find_if(b.modes.begin(), b.modes.end(), [&](const ModeFigures& f) { return f.mode == x.mode; });
    ModeComparison m;
    m.mode = x.mode;
    if (y == b.modes.end()) {
      m.speed.base = x.samples_per_second;
      m.memory.base = double(x.peak_bytes);
      m.val_loss.base = x.val_loss;
      const auto why = b.unfinished.find(x.mode);
      m.unfinished_in_new = why != b.unfinished.end() ? why->second : "not run";
      m.regressions.push_back(m.mode + ": no figures in " + new_name + " (" + *m.unfinished_in_new + ")");
      comparison.modes.push_back(m);
      continue;
    }
    // Its figures come from the trials that finished: one that did not is a regression of its own.
    if (const auto why = b.unfinished.find(x.mode); why != b.unfinished.end())
      m.regressions.push_back(m.mode + ": a trial in " + new_name + " did not finish (" + why->second + ")");
    judge_mode(x, *y, in_force, m);
    comparison.modes.push_back(m);
  }
  return comparison;
}

std::string comparison_to_console(const Comparison& comparison) {
  std::ostringstream out;
  out << render_aligned(rows(comparison)) << limits_line(comparison) << "\n";
  if (comparison.new_incomplete) out << "regression: " << *comparison.new_incomplete << "\n";
  for (const auto& m : comparison.modes) {
    for (const auto& r : m.regressions) out << "regression: " << r << "\n";
    for (const auto& u : m.undecided) out << "undecided: " << u << "\n";
  }
  return out.str();
}

std::string comparison_to_markdown(const Comparison& comparison) {
  std::ostringstream out;
  out << "### ampbench compare\n\n"
      << render_markdown_table(rows(comparison)) << "\n"
      << limits_line(comparison) << ".\n";
  if (comparison.new_incomplete) out << "\n- **regression**: " << *comparison.new_incomplete;
  for (const auto& m : comparison.modes) {
    for (const auto& r : m.regressions) out << "\n- **regression**: " << r;
    for (const auto& u : m.undecided) out << "\n- undecided: " << u;
  }
  out << "\n";
  return out.str();
}

}  // namespace ampbench::report
