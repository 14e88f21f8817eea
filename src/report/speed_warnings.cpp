#include "report/speed_warnings.h"

#include <algorithm>
#include <cmath>

#include "measure/statistics.h"
#include "report/warning_text.h"
#include "report/warnings.h"

namespace ampbench::report {
namespace {

void high_cv(const ModeSummary& s, std::vector<Warning>& out) {
  if (!s.samples_per_second.cv || *s.samples_per_second.cv <= kHighCoefficientOfVariation) return;
  out.push_back(
      {WarningKind::high_cv, s.mode,
       mode_name(s.mode) +
           format(": samples/s varies by %.1f%% (coefficient of variation) across epochs and trials",
                  100.0 * *s.samples_per_second.cv),
       "close other programs, run longer epochs, or add repeats"});
}

const profile::ModeProfile* profile_of(const RunReport& report, amp::PrecisionMode mode) {
  for (const auto& p : report.measured.profiles)
    if (p.mode == mode && p.profile) return &*p.profile;
  return nullptr;
}

// fp32's own time per step for an op of that name and phase (0 when it is not among fp32's top ops).
double fp32_seconds_of(const profile::ModeProfile& fp32, const profile::OpTime& op) {
  double seconds = 0;
  for (const auto& o : fp32.top_ops)
    if (o.name == op.name && o.phase == op.phase) seconds += o.seconds;
  return seconds;
}

// Whether `op` of `mode`'s pass is work fp32's pass does too, so that its extra time is no 16-bit kernel's:
// an op of fp32's optimizer step where the mode keeps fp32 master weights (the tensor lists the fused
// kernels take carry no dtypes to compare), or an op fp32 ran with the same input dtypes and shapes. An op
// fp32 never ran (GradScaler's unscale, a cast) is the mode's own.
bool runs_as_in_fp32(const profile::OpTime& op, amp::PrecisionMode mode, const profile::ModeProfile& fp32) {
  const auto& row = amp::recipe_of(mode);
  const auto& base = amp::recipe_of(amp::PrecisionMode::fp32);
  const bool fp32_state = row.weights == base.weights && row.update_rounding == base.update_rounding;
  const bool typed = std::any_of(op.dtypes.begin(), op.dtypes.end(),
                                 [](const std::string& d) { return !d.empty() && d != "Scalar"; });
  return std::any_of(fp32.top_ops.begin(), fp32.top_ops.end(), [&](const profile::OpTime& o) {
    if (o.name != op.name || o.phase != op.phase) return false;
    if (op.phase == profile::Phase::optimizer) return fp32_state;
    return typed && o.dtypes == op.dtypes && o.shapes == op.shapes;
  });
}

// Where a slow mode's extra time went, from the profiled pass: the op that costs it most beyond fp32's,
// among those that are not fp32's own work.
struct SlowModeCause {
  std::string text;
  bool named = false;  // an op was named; else the extra time lay only in work fp32 does too
};
std::optional<SlowModeCause> slow_mode_cause(const RunReport& report, amp::PrecisionMode mode) {
  const auto* slow = profile_of(report, mode);
  const auto* fp32 = profile_of(report, amp::PrecisionMode::fp32);
  if (!slow || !fp32 || slow->top_ops.empty()) return std::nullopt;
  const auto step =
      format("; its profiled step took %.4g s (fp32's %.4g s), and ", slow->step_seconds, fp32->step_seconds);
  const profile::OpTime* worst = nullptr;
  double worst_extra = 0;
  bool same_work_slower = false;
  for (const auto& op : slow->top_ops) {
    const double extra = op.seconds - fp32_seconds_of(*fp32, op);
    if (extra <= 0) continue;
    if (runs_as_in_fp32(op, mode, *fp32)) {
      same_work_slower = true;
    } else if (extra > worst_extra) {
      worst = &op, worst_extra = extra;
    }
  }
  if (worst)
    return SlowModeCause{step + worst->name + " (" + std::string(profile::to_string(worst->phase)) +
                             format(") alone took %.4g s of it against fp32's %.4g s", worst->seconds,
                                    fp32_seconds_of(*fp32, *worst)),
                         true};
  if (!same_work_slower) return std::nullopt;
  return SlowModeCause{step +
                           "only ops that run as they do in fp32 (the optimizer's fp32 step, or the same "
                           "dtypes and shapes) took longer: no 16-bit kernel explains it",
                       false};
}

// A mode far slower than fp32, whatever the hardware's flags promise: judged on the speed-up's interval
// where there is one, named with the profiled pass's costliest op where a pass ran.
void slow_mode(const RunReport& report, const ModeSummary& s, std::vector<Warning>& out) {
  if (s.mode == amp::PrecisionMode::fp32 || !s.speedup_vs_fp32) return;
  const double bound = s.speedup_interval ? s.speedup_interval->high : *s.speedup_vs_fp32;
  if (bound >= kSlowModeSpeedup) return;
  const auto cause = slow_mode_cause(report, s.mode);
  std::string advice =
      "run with --profile to see which ops take the time: a 16-bit kernel without a fast path on this device "
      "is the usual cause";
  if (cause && cause->named)
    advice =
        "that op is where the extra time goes (see the mode's profile): measure this mode where it has a "
        "fast 16-bit kernel, or leave the mode out";
  else if (cause)
    advice =
        "the profiled pass was slower in work fp32 does too: if a profile_contention warning names it, "
        "another process took the CPU; rerun on a quiet machine with --profile";
  out.push_back({WarningKind::slow_mode, s.mode,
                 mode_name(s.mode) + format(": ran at %.3gx fp32's samples/s", *s.speedup_vs_fp32) +
                     (s.speedup_interval ? format(" (95%% interval [%.3g, %.3g])", s.speedup_interval->low,
                                                  s.speedup_interval->high)
                                         : std::string(" (one trial: no interval)")) +
                     format(", under %.2gx", kSlowModeSpeedup) + (cause ? cause->text : ""),
                 advice});
}

// A mode's compared epochs, each with the trial it came from.
struct ComparedEpochs {
  std::vector<double> seconds;
  std::vector<std::pair<int64_t, const train::EpochRecord*>> where;
};

ComparedEpochs compared_epochs_of(const RunReport& report, const ModeSummary& s) {
  ComparedEpochs out;
  for (const auto& trial : report.measured.trials) {
    if (trial.mode != s.mode || !trial.finished()) continue;
    for (const auto& e : trial.epochs) {
      if (std::find(s.epochs_compared.begin(), s.epochs_compared.end(), e.epoch) == s.epochs_compared.end())
        continue;
      out.seconds.push_back(e.seconds);
      out.where.emplace_back(trial.trial, &e);
    }
  }
  return out;
}

bool contended(const measure::CpuUsage& cpu) {
  return cpu.run_queue_wait_share && *cpu.run_queue_wait_share > kContentionWaitShare;
}

// What an epoch got of the CPU, as a clause: "it got 48% of the CPU time its 2 threads could use, and
// they waited for a CPU 45% of it (212 involuntary context switches)".
std::string cpu_clause(const measure::CpuUsage& cpu) {
  std::string out = format("it got %.0f%% of the CPU time its %.0f thread(s) could use", 100 * cpu.cpu_share,
                           double(cpu.threads));
  if (cpu.run_queue_wait_share)
    out += format(", and they waited for a CPU %.0f%% of it", 100 * *cpu.run_queue_wait_share);
  return out + format(" (%.0f involuntary context switches)", double(cpu.involuntary_switches));
}

std::string outlier_advice(bool slower, bool contended) {
  if (!slower)
    return "the other epochs were the slow ones: if a contention warning names them, another process took "
           "the CPU from them; rerun, or add repeats so the median absorbs it";
  if (contended) return "another process took the CPU from it: rerun on a quiet machine, or add repeats";
  return "its threads were not kept waiting for a CPU, so the cause lies elsewhere (the device, memory, the "
         "data); rerun, or add repeats so the median absorbs it";
}

void outliers(const RunReport& report, const ModeSummary& s, std::vector<Warning>& out) {
  const auto epochs = compared_epochs_of(report, s);
  const double median_seconds = measure::median(epochs.seconds).value_or(0.0);
  for (size_t i : measure::mad_outliers(epochs.seconds)) {
    if (std::abs(epochs.seconds[i] - median_seconds) < kOutlierMinDeviation * median_seconds) continue;
    const bool slower = epochs.seconds[i] > median_seconds;
    const auto& [trial, epoch] = epochs.where[i];
    out.push_back({WarningKind::outlier, s.mode,
                   mode_name(s.mode) +
                       format(": trial %.0f, epoch %.0f took %.3f s, far ", double(trial),
                              double(epoch->epoch), epochs.seconds[i]) +
                       (slower ? "slower" : "faster") +
                       format(" than the mode's median, %.3f s; ", median_seconds) + cpu_clause(epoch->cpu) +
                       (s.cpu_share ? format(" (the mode's median epoch: %.0f%%)", 100 * *s.cpu_share) : ""),
                   outlier_advice(slower, contended(epoch->cpu))});
  }
}

// Epochs whose threads spent more than kContentionWaitShare of their time waiting for a CPU: another
// process (or more threads than CPUs) competed with the run, and the figures include that wait.
void contention(const RunReport& report, const ModeSummary& s, std::vector<Warning>& out) {
  const auto epochs = compared_epochs_of(report, s);
  std::optional<size_t> worst;
  int64_t count = 0;
  for (size_t i = 0; i < epochs.where.size(); ++i) {
    const auto& cpu = epochs.where[i].second->cpu;
    if (!contended(cpu)) continue;
    ++count;
    if (!worst || *cpu.run_queue_wait_share > *epochs.where[*worst].second->cpu.run_queue_wait_share)
      worst = i;
  }
  if (!worst) return;
  const auto& [trial, epoch] = epochs.where[*worst];
  const auto& env = report.context.environment;
  out.push_back(
      {WarningKind::contention, s.mode,
       mode_name(s.mode) +
           format(": in %.0f of %.0f compared epochs its threads waited for a CPU more than %.0f%% of the "
                  "time; ",
                  double(count), double(epochs.where.size()), 100 * kContentionWaitShare) +
           format("worst, trial %.0f epoch %.0f: ", double(trial), double(epoch->epoch)) +
           cpu_clause(epoch->cpu) +
           (env.load_average ? format("; the load average was %.2f on %.0f CPUs as the run started",
                                      *env.load_average, double(env.cpu_cores))
                             : std::string()),
       "its times include that wait: close what else runs (or set train.threads to at most the free CPUs) "
       "and rerun"});
}

// A profiled pass whose threads waited for a CPU: its op times include the wait. A pass of a few
// milliseconds waits that share for the scheduler's own latency (the profiler's threads wake too): under
// kMinProfileWaitSeconds of waiting is not taken for another process.
constexpr double kMinProfileWaitSeconds = 0.02;
void profile_contention(const RunReport& report, const ModeSummary& s, std::vector<Warning>& out) {
  const auto* p = profile_of(report, s.mode);
  if (!p || !p->cpu || !contended(*p->cpu) ||
      p->cpu->run_queue_wait_seconds.value_or(0) < kMinProfileWaitSeconds)
    return;
  out.push_back({WarningKind::profile_contention, s.mode,
                 mode_name(s.mode) + ": over its profiled steps " + cpu_clause(*p->cpu),
                 "its op times include that wait, and an op slower than fp32's there need not be the 16-bit "
                 "kernel's: close what else runs and rerun with --profile"});
}

}  // namespace

void speed_warnings(const RunReport& report, const ModeSummary& s, std::vector<Warning>& out) {
  slow_mode(report, s, out);
  high_cv(s, out);
  outliers(report, s, out);
  contention(report, s, out);
  profile_contention(report, s, out);
}

}  // namespace ampbench::report
