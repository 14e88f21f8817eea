#include "report/warnings.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>

#include "train/stop_request.h"

namespace ampbench::report {
namespace {

using train::TrialRecord;
using train::TrialStatus;

std::string format(const char* pattern, double a, double b = 0, double c = 0) {
  char text[160];
  std::snprintf(text, sizeof text, pattern, a, b, c);
  return text;
}

std::string mode_name(amp::PrecisionMode mode) { return std::string(amp::to_string(mode)); }

void debug_build(const RunReport& report, std::vector<Warning>& out) {
  const auto& build = report.context.environment.build_type;
  if (build == "Release" || build == "RelWithDebInfo") return;
  out.push_back({WarningKind::debug_build, std::nullopt,
                 "ampbench was built as " + build + ": timings are not representative",
                 "rebuild with -DCMAKE_BUILD_TYPE=Release (scripts/ampbench does)"});
}

void setup_failed(const RunReport& report, std::vector<Warning>& out) {
  if (!report.measured.setup_failure) return;
  out.push_back(
      {WarningKind::setup_failed, std::nullopt, *report.measured.setup_failure + ": no mode was trained",
       "the model, its gradients and optimizer state must fit the device: choose a smaller model, or "
       "a device with more memory"});
}

void flops_uncounted(const RunReport& report, std::vector<Warning>& out) {
  const auto& ops = report.context.flops_uncounted;
  if (ops.empty()) return;
  std::string listed;
  for (size_t i = 0; i < ops.size() && i < 3; ++i) listed += (i ? "; " : "") + ops[i];
  if (ops.size() > 3) listed += "; and " + std::to_string(ops.size() - 3) + " more";
  out.push_back({WarningKind::flops_uncounted, std::nullopt,
                 "the FLOPs of " + std::to_string(ops.size()) +
                     " matrix op(s) could not be counted and are " +
                     "left out of train_flops_per_sample: " + listed,
                 "TFLOP/s and MFU are lower bounds; an op's sizes come from the program's metadata at the "
                 "run's input shape"});
}

void data_on_host(const RunReport& report, std::vector<Warning>& out) {
  if (report.measured.data_on_device) return;
  out.push_back({WarningKind::data_on_host, std::nullopt,
                 "the data set did not fit on the device: each batch is copied from host memory inside the "
                 "timed region",
                 "use fewer train_samples to compare the modes on training alone"});
}

WarningKind warning_for(amp::ModeCaveat::Kind kind) {
  switch (kind) {
    case amp::ModeCaveat::Kind::no_tensor_cores:
      return WarningKind::no_tensor_cores;
    case amp::ModeCaveat::Kind::no_16bit_arithmetic:
      return WarningKind::no_16bit_arithmetic;
    case amp::ModeCaveat::Kind::no_float8_arithmetic:
      return WarningKind::no_float8_arithmetic;
    case amp::ModeCaveat::Kind::emulated:
      return WarningKind::emulated;
  }
  return WarningKind::no_16bit_arithmetic;
}

void mode_caveats(const RunReport& report, std::vector<Warning>& out) {
  for (const auto& [mode, caveat] : report.measured.mode_caveats) {
    out.push_back({warning_for(caveat.kind), mode, mode_name(mode) + ": " + caveat.reason, caveat.advice});
  }
}

// fp16 trials (timed or fidelity) whose every optimizer step was skipped: the weights never moved.
void never_stepped(const RunReport& report, std::vector<Warning>& out) {
  for (const auto* trials : {&report.measured.trials, &report.measured.fidelity_trials}) {
    for (const auto& t : *trials) {
      if (!t.loss_scale_trace || !t.loss_scale_trace->never_stepped()) continue;
      const char* what = trials == &report.measured.trials ? " trial " : " fidelity seed ";
      out.push_back({WarningKind::never_stepped, t.mode,
                     mode_name(t.mode) + what + std::to_string(t.trial) + ": all " +
                         std::to_string(t.loss_scale_trace->optimizer_steps) +
                         " optimizer steps were skipped for inf/NaN gradients: the weights never moved, so "
                         "its fidelity verdict is fail",
                     "if the scale started too high for this model, lower precision.grad_scaler.init_scale; "
                     "else look for the inf/NaN source in the gradients; bf16 needs no loss scale"});
    }
  }
}

// A pure bf16 mode whose fused optimizer kernel left bf16 weights unchanged in its check: its steps went
// through fp32 working copies, so its time is not the fused kernel's.
void optimizer_fallbacks(const RunReport& report, std::vector<Warning>& out) {
  std::set<amp::PrecisionMode> warned;
  for (const auto& t : report.measured.trials) {
    if (!t.optimizer_fallback || !warned.insert(t.mode).second) continue;
    out.push_back(
        {WarningKind::optimizer_fallback, t.mode,
         mode_name(t.mode) + ": the " + *t.optimizer_fallback +
             " kernel of this LibTorch left bf16 weights unchanged in a check step, so they were "
             "stepped through fp32 working copies: its time includes the copies",
         "a LibTorch whose fused kernel steps bf16 weights times the fused step (pytorch/pytorch#191763)"});
  }
}

// --numerics with no mode the pass observes (fp32 and tf32 compute in fp32), or every such mode skipped.
void numerics_unmeasured(const RunReport& report, std::vector<Warning>& out) {
  if (!report.context.numerics_requested || !report.measured.numerics.empty() || report.measured.stopped_by ||
      report.measured.setup_failure)
    return;
  out.push_back(
      {WarningKind::numerics_unmeasured, std::nullopt,
       "the numerics pass measured nothing: none of the modes run computes in a 16-bit or narrower "
       "format, which is what it observes",
       "add a 16-bit, float8 or block-scaled mode to --modes (fp16, bf16, bf16-pure, fp8, mxfp8, ...)"});
}

// A one-epoch run compares epoch 1 alone: past its warm-up steps it may still pay for first calls (kernel
// choice, the allocator growing), and a speed-up read from it can be many times the steady one.
void first_epoch_only(const RunReport& report, std::vector<Warning>& out) {
  const bool one_epoch = std::any_of(
      report.measured.trials.begin(), report.measured.trials.end(),
      [](const train::TrialRecord& t) { return t.status == train::TrialStatus::ok && t.epochs.size() == 1; });
  if (!one_epoch) return;
  out.push_back(
      {WarningKind::first_epoch_only, std::nullopt,
       "every trial ran one epoch: its speed figures come from epoch 1 after " +
           std::to_string(report.measured.trials.front().warmup_steps_excluded) +
           " warm-up step(s), which may still hold first calls' costs (kernel choice, the allocator "
           "growing)",
       "run 2 or more epochs: the speed figures then leave epoch 1 out"});
}

void scale_collapses(const RunReport& report, std::vector<Warning>& out) {
  for (const auto& t : report.measured.trials) {
    const auto& trace = t.loss_scale_trace;
    if (!trace || (trace->longest_backoff_run < kScaleCollapseRun && trace->min_scale >= kScaleCollapseFloor))
      continue;
    out.push_back({WarningKind::scale_collapse, t.mode,
                   mode_name(t.mode) + " trial " + std::to_string(t.trial) +
                       format(": the loss scale backed off %.0f steps in a row and fell to %g",
                              double(trace->longest_backoff_run), trace->min_scale),
                   "gradients overflow fp16 again and again: look for NaN/inf sources (a log or division "
                   "near 0, an unstable loss), lower the learning rate, or use bf16"});
  }
}

// A trial that did not finish: why, and what to do about it.
Warning unfinished_trial(const TrialRecord& t, const char* what) {
  const std::string where = mode_name(t.mode) + " " + what + " " + std::to_string(t.trial) + ": ";
  const std::string detail = t.detail.value_or(std::string(train::to_string(t.status)));
  switch (t.status) {
    case TrialStatus::diverged:
      return {
          WarningKind::diverged, t.mode, where + detail,
          "lower the learning rate or clip gradients; for fp16, a lower init_scale; bf16 keeps fp32's range"};
    case TrialStatus::skipped:
      return {WarningKind::skipped, t.mode, where + "skipped: " + detail,
              "measure this mode on hardware that supports it (see the reason)"};
    case TrialStatus::oom:
      return {WarningKind::oom, t.mode, where + detail,
              "lower train.batch_size, or compare modes at a size that fits"};
    case TrialStatus::failed:
      return {WarningKind::failed, t.mode, where + "failed: " + detail,
              "an error, not a property of the mode: fix what the message names and rerun; the other modes' "
              "figures stand"};
    default:
      return {WarningKind::interrupted, t.mode, where + detail, "rerun to measure what is missing"};
  }
}

void unfinished_trials(const RunReport& report, std::vector<Warning>& out) {
  for (const auto& t : report.measured.trials) {
    if (t.status != TrialStatus::ok) out.push_back(unfinished_trial(t, "trial"));
  }
  for (const auto& t : report.measured.fidelity_trials) {
    if (t.status != TrialStatus::ok) out.push_back(unfinished_trial(t, "fidelity seed"));
  }
}

// A fidelity verdict from one seed has no noise floor to be judged against: say so once, for every mode
// judged that way.
void no_noise_floor(const RunReport& report, std::vector<Warning>& out) {
  std::vector<amp::PrecisionMode> modes;
  for (const auto& s : report.summary)
    if (s.fidelity.verdict && s.fidelity.paired_seeds == 1) modes.push_back(s.mode);
  if (modes.empty()) return;
  out.push_back({WarningKind::no_noise_floor, modes.size() == 1 ? std::optional(modes.front()) : std::nullopt,
                 amp::precision_mode_names(modes) +
                     ": fidelity judged on one seed: the difference from fp32 may be luck, as no noise floor "
                     "was measured",
                 "set precision.fidelity_seeds (or --fidelity-seeds) to 5 or more to judge it against fp32's "
                 "seed-to-seed spread"});
}

void fidelity_inconclusive(const ModeSummary& s, std::vector<Warning>& out) {
  if (s.fidelity.verdict != FidelityVerdict::inconclusive) return;
  const auto& f = s.fidelity;
  out.push_back({WarningKind::fidelity_inconclusive, s.mode,
                 mode_name(s.mode) +
                     format(": fidelity inconclusive: the val loss delta's 95%% interval [%+.4f, %+.4f] ",
                            f.delta_interval->low, f.delta_interval->high) +
                     "straddles the tolerance over " + std::to_string(f.paired_seeds) + " seeds",
                 f.seeds_needed ? "set precision.fidelity_seeds to " + std::to_string(*f.seeds_needed) +
                                      " to decide, if the spread stays as measured"
                                : "the delta sits on the tolerance: no practical number of seeds decides "
                                  "it; choose the tolerance the team needs"});
}

// The profiled pass: a mode whose pass failed, and a 16-bit mode whose matrix work mostly ran in fp32.
void profile_findings(const RunReport& report, std::vector<Warning>& out) {
  for (const auto& p : report.measured.profiles) {
    if (p.failure) {
      out.push_back({WarningKind::profile_failed, p.mode,
                     mode_name(p.mode) + ": profiled pass failed: " + *p.failure,
                     "the timed figures stand; the error above is the profiled pass's own"});
      continue;
    }
    const auto& share = p.profile->precision.low_precision_flop_share;
    if (!amp::autocast_dtype(p.mode) || !share || *share >= kMinLowPrecisionFlopShare) continue;
    out.push_back(
        {WarningKind::precision_not_applied, p.mode,
         mode_name(p.mode) + format(": precision not applied: only %.1f%% of the matrix FLOPs ran in "
                                    "16-bit or float8 (under %.0f%%)",
                                    100 * *share, 100 * kMinLowPrecisionFlopShare),
         "see the profile's fp32 ops under autocast: an op autocast does not cover, or a model that "
         "casts back to fp32"});
  }
}

// One warning per trial count, naming its modes: `repeats` is the whole run's, so usually one line (a
// mode that lost a trial has fewer, and a line of its own, whose advice is not to raise repeats).
void few_repeats(const RunReport& report, std::vector<Warning>& out) {
  const int64_t repeats = report.context.repeats;
  std::map<int64_t, std::vector<amp::PrecisionMode>> few_trials;
  for (const auto& s : report.summary)
    if (s.trials < kRepeatsForAVerdict) few_trials[s.trials].push_back(s.mode);
  for (const auto& [trials, modes] : few_trials) {
    const bool lost = trials < repeats;
    out.push_back({WarningKind::few_repeats, modes.size() == 1 ? std::optional(modes.front()) : std::nullopt,
                   amp::precision_mode_names(modes) + ": " + std::to_string(trials) +
                       (lost ? " of " + std::to_string(repeats) : "") + " trial(s)" +
                       (modes.size() > 1 ? " each" : "") + ": too few for a speed-up verdict" +
                       (trials < 2 ? ", and no uncertainty interval" : ""),
                   lost ? "the others ended early (see their warnings): fix what stopped them and rerun"
                        : "set \"repeats\" to 3 or more (5 or more for a tighter interval); trials are "
                          "interleaved across modes"});
  }
}

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

// Where a slow mode's extra time went, from the profiled pass: the op that costs it most beyond fp32's.
std::optional<std::string> slow_mode_cause(const RunReport& report, amp::PrecisionMode mode) {
  const auto* slow = profile_of(report, mode);
  const auto* fp32 = profile_of(report, amp::PrecisionMode::fp32);
  if (!slow || !fp32 || slow->top_ops.empty()) return std::nullopt;
  const profile::OpTime* worst = nullptr;
  double worst_extra = 0;
  for (const auto& op : slow->top_ops) {
    const double extra = op.seconds - fp32_seconds_of(*fp32, op);
    if (extra > worst_extra) worst = &op, worst_extra = extra;
  }
  if (!worst) return std::nullopt;
  return format("; its profiled step took %.4g s (fp32's %.4g s), and ", slow->step_seconds,
                fp32->step_seconds) +
         worst->name + " (" + std::string(profile::to_string(worst->phase)) +
         format(") alone took %.4g s of it against fp32's %.4g s", worst->seconds,
                fp32_seconds_of(*fp32, *worst));
}

// A mode far slower than fp32, whatever the hardware's flags promise: judged on the speed-up's interval
// where there is one, named with the profiled pass's costliest op where a pass ran.
void slow_mode(const RunReport& report, const ModeSummary& s, std::vector<Warning>& out) {
  if (s.mode == amp::PrecisionMode::fp32 || !s.speedup_vs_fp32) return;
  const double bound = s.speedup_interval ? s.speedup_interval->high : *s.speedup_vs_fp32;
  if (bound >= kSlowModeSpeedup) return;
  const auto cause = slow_mode_cause(report, s.mode);
  out.push_back(
      {WarningKind::slow_mode, s.mode,
       mode_name(s.mode) + format(": ran at %.3gx fp32's samples/s", *s.speedup_vs_fp32) +
           (s.speedup_interval
                ? format(" (95%% interval [%.3g, %.3g])", s.speedup_interval->low, s.speedup_interval->high)
                : std::string(" (one trial: no interval)")) +
           format(", under %.2gx", kSlowModeSpeedup) + cause.value_or(""),
       cause ? "that op is where the extra time goes (see the mode's profile): measure this mode where it "
               "has a "
               "fast 16-bit kernel, or leave the mode out"
             : "run with --profile to see which ops take the time: a 16-bit kernel without a fast path on "
               "this device is the usual cause"});
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

}  // namespace

// An untimed pass that failed (its figures missing), or that a signal stopped, said as such.
void pass_failure(amp::PrecisionMode mode, const char* pass, const std::optional<std::string>& failure,
                  std::vector<Warning>& out) {
  if (!failure) return;
  if (failure->starts_with(train::kStoppedBy)) {
    out.push_back({WarningKind::interrupted, mode, mode_name(mode) + ": its " + pass + " was " + *failure,
                   "rerun to measure what is missing"});
    return;
  }
  out.push_back({WarningKind::pass_failed, mode, mode_name(mode) + ": its " + pass + " failed: " + *failure,
                 "the timed figures stand; the error above is the pass's own"});
}

void pass_failures(const RunReport& report, std::vector<Warning>& out) {
  for (const auto& a : report.measured.update_audits)
    pass_failure(a.mode, "lost-update audit", a.failure, out);
  for (const auto& n : report.measured.numerics) pass_failure(n.mode, "numerics pass", n.failure, out);
}

std::vector<Warning> find_warnings(const RunReport& report) {
  std::vector<Warning> out;
  debug_build(report, out);
  setup_failed(report, out);
  data_on_host(report, out);
  flops_uncounted(report, out);
  mode_caveats(report, out);
  scale_collapses(report, out);
  never_stepped(report, out);
  optimizer_fallbacks(report, out);
  numerics_unmeasured(report, out);
  first_epoch_only(report, out);
  unfinished_trials(report, out);
  few_repeats(report, out);
  no_noise_floor(report, out);
  profile_findings(report, out);
  pass_failures(report, out);
  for (const auto& s : report.summary) {
    fidelity_inconclusive(s, out);
    slow_mode(report, s, out);
    high_cv(s, out);
    outliers(report, s, out);
    contention(report, s, out);
  }
  return out;
}

}  // namespace ampbench::report
