#include "report/warnings.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "report/format_applied.h"
#include "report/speed_warnings.h"
#include "report/warning_text.h"
#include "train/stop_request.h"

namespace ampbench::report {
namespace {

using train::TrialRecord;
using train::TrialStatus;

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

// A mode's caveats, but an emulation's for a mode that ran no layer in its format: nothing was emulated.
void mode_caveats(const RunReport& report, std::vector<Warning>& out) {
  for (const auto& [mode, caveat] : report.measured.mode_caveats) {
    if (caveat.kind == amp::ModeCaveat::Kind::emulated && format_not_applied(mode, report.measured)) continue;
    out.push_back({warning_for(caveat.kind), mode, mode_name(mode) + ": " + caveat.reason, caveat.advice});
  }
}

// A float8 or float4 mode whose every product stayed in bf16: its figures are bf16's, not the format's.
void formats_not_applied(const RunReport& report, std::vector<Warning>& out) {
  for (auto mode : report.context.modes) {
    const auto layers = format_not_applied(mode, report.measured);
    if (!layers) continue;
    out.push_back({WarningKind::precision_not_applied, mode,
                   mode_name(mode) + ": precision not applied: no linear layer ran in " + mode_name(mode) +
                       "'s format, every product stayed in bf16: " + *layers,
                   "its figures are bf16's, so it has no fidelity verdict: give the format layers whose "
                   "dimensions it takes, or keep fewer in bf16 (precision.layer_filter)"});
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

// The profiled pass: a mode whose pass failed or was stopped, and a 16-bit mode whose matrix work mostly ran
// in fp32 (read from the steps a stopped pass profiled too).
void profile_findings(const RunReport& report, std::vector<Warning>& out) {
  for (const auto& p : report.measured.profiles) {
    if (p.failure) {
      out.push_back({WarningKind::profile_failed, p.mode,
                     mode_name(p.mode) + ": profiled pass failed: " + *p.failure,
                     "the timed figures stand; the error above is the profiled pass's own"});
      continue;
    }
    if (p.stopped) {
      out.push_back({WarningKind::interrupted, p.mode,
                     mode_name(p.mode) + ": its profiled pass was " + *p.stopped,
                     "rerun to measure what is missing"});
    }
    if (!p.profile) continue;
    const auto& share = p.profile->precision.low_precision_flop_share;
    if (!amp::recipe_of(p.mode).autocast || !share || *share >= kMinLowPrecisionFlopShare) continue;
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
  for (const auto* trials : {&report.measured.trials, &report.measured.fidelity_trials}) {
    for (const auto& t : *trials) {
      if (t.divergence) pass_failure(t.mode, "divergence replay", t.divergence->failure, out);
    }
  }
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
  formats_not_applied(report, out);
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
    speed_warnings(report, s, out);
  }
  return out;
}

}  // namespace ampbench::report
