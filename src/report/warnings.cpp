#include "report/warnings.h"

#include <algorithm>
#include <cstdio>
#include <map>

namespace ampbench::report {
namespace {

std::string format(const char* pattern, double a, double b = 0, double c = 0) {
  char text[160];
  std::snprintf(text, sizeof text, pattern, a, b, c);
  return text;
}

}  // namespace

std::vector<Warning> find_warnings(const RunReport& report) {
  std::vector<Warning> out;
  const auto& build = report.environment.build_type;
  if (build != "Release" && build != "RelWithDebInfo") {
    out.push_back({"debug_build", std::nullopt,
                   "ampbench was built as " + build + ": timings are not representative",
                   "rebuild with -DCMAKE_BUILD_TYPE=Release (scripts/ampbench does)"});
  }
  if (!report.data_on_device) {
    out.push_back({"data_on_host", std::nullopt,
                   "the data set did not fit on the device: each batch is copied from host memory inside the "
                   "timed region",
                   "use fewer train_samples to compare the modes on training alone"});
  }
  for (const auto& [mode, caveat] : report.mode_caveats) {
    out.push_back(
        {caveat.kind, mode, std::string(amp::to_string(mode)) + ": " + caveat.reason, caveat.advice});
  }
  for (const auto& t : report.trials) {
    if (const auto& trace = t.loss_scale_trace; trace && (trace->longest_backoff_run >= kScaleCollapseRun ||
                                                          trace->min_scale < kScaleCollapseFloor)) {
      out.push_back({"scale_collapse", t.mode,
                     std::string(amp::to_string(t.mode)) + " trial " + std::to_string(t.trial) +
                         format(": the loss scale backed off %.0f steps in a row and fell to %g",
                                double(trace->longest_backoff_run), trace->min_scale),
                     "gradients overflow fp16 again and again: look for NaN/inf sources (a log or division "
                     "near 0, an unstable loss), lower the learning rate, or use bf16"});
    }
  }
  for (const auto& t : report.trials) {
    if (t.status == "ok") continue;
    const std::string where =
        std::string(amp::to_string(t.mode)) + " trial " + std::to_string(t.trial) + ": ";
    const std::string detail = t.detail.value_or(t.status);
    if (t.status == "diverged") {
      out.push_back({"diverged", t.mode, where + detail,
                     "lower the learning rate or clip gradients; for fp16, a lower init_scale; bf16 keeps "
                     "fp32's range"});
    } else if (t.status == "skipped") {
      out.push_back({"skipped", t.mode, where + "skipped: " + detail,
                     "measure this mode on hardware that supports it (see the reason)"});
    } else if (t.status == "oom") {
      out.push_back(
          {"oom", t.mode, where + detail, "lower train.batch_size, or compare modes at a size that fits"});
    } else if (t.status == "failed") {
      out.push_back({"failed", t.mode, where + "failed: " + detail,
                     "an error, not a property of the mode: fix what the message names and rerun; the other "
                     "modes' figures stand"});
    } else {
      out.push_back({t.status, t.mode, where + detail, "rerun to measure what is missing"});
    }
  }
  // One warning per trial count, naming its modes: `repeats` is the whole run's, so usually one line
  // (a mode that lost a trial has fewer, and a line of its own, whose advice is not to raise repeats).
  const int64_t repeats = report.config.is_object() ? report.config.value("repeats", int64_t{1}) : 1;
  std::map<int64_t, std::vector<amp::PrecisionMode>> few_trials;
  for (const auto& s : report.summary)
    if (s.trials < kRepeatsForAVerdict) few_trials[s.trials].push_back(s.mode);
  for (const auto& [trials, modes] : few_trials) {
    const bool lost = trials < repeats;
    out.push_back(
        {"few_repeats", modes.size() == 1 ? std::optional(modes.front()) : std::nullopt,
         amp::precision_mode_names(modes) + ": " + std::to_string(trials) +
             (lost ? " of " + std::to_string(repeats) : "") + " trial(s)" +
             (modes.size() > 1 ? " each" : "") + ": too few for a speed-up verdict" +
             (trials < 2 ? ", and no uncertainty interval" : ""),
         lost ? "the others ended early (see their warnings): fix what stopped them and rerun"
              : "set \"repeats\" to 3 or more (5 or more for a tighter interval); trials are interleaved "
                "across modes"});
  }
  for (const auto& s : report.summary) {
    const std::string mode(amp::to_string(s.mode));
    if (s.samples_per_second.cv && *s.samples_per_second.cv > kHighCoefficientOfVariation) {
      out.push_back(
          {"high_cv", s.mode,
           mode + format(": samples/s varies by %.1f%% (coefficient of variation) across epochs and trials",
                         100.0 * *s.samples_per_second.cv),
           "close other programs, run longer epochs, or add repeats"});
    }
    std::vector<double> seconds;
    std::vector<std::pair<int64_t, int64_t>> where;  // (trial, epoch)
    for (const auto& trial : report.trials) {
      if (trial.mode != s.mode) continue;
      for (const auto& e : trial.epochs) {
        if (std::find(s.epochs_compared.begin(), s.epochs_compared.end(), e.epoch) == s.epochs_compared.end())
          continue;
        seconds.push_back(e.seconds);
        where.emplace_back(trial.trial, e.epoch);
      }
    }
    const double median_seconds = measure::median(seconds).value_or(0.0);
    for (size_t i : measure::mad_outliers(seconds)) {
      const bool slower = seconds[i] > median_seconds;
      out.push_back(
          {"outlier", s.mode,
           mode +
               format(": trial %.0f, epoch %.0f took %.3f s, far ", double(where[i].first),
                      double(where[i].second), seconds[i]) +
               (slower ? "slower" : "faster") + format(" than the mode's median, %.3f s", median_seconds),
           slower ? "something else was probably running; rerun, or add repeats so the median absorbs it"
                  : "something else was probably running during the other epochs; rerun, or add "
                    "repeats so the median absorbs it"});
    }
  }
  return out;
}

}  // namespace ampbench::report
