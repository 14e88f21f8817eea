#include "report/summary.h"

#include <algorithm>
#include <cmath>

#include "amp/precision_mode.h"
#include "report/fidelity.h"

namespace ampbench::report {
namespace {

using train::EpochRecord;
using train::TrialRecord;

std::vector<const EpochRecord*> compared_epochs(const TrialRecord& trial) {
  std::vector<const EpochRecord*> out;
  for (size_t i = first_compared_epoch(trial.epochs.size()); i < trial.epochs.size(); ++i)
    out.push_back(&trial.epochs[i]);
  return out;
}

// The trial's compared epochs and its samples/s over them: what every speed figure is built from.
TrialRate compared_rate(const TrialRecord& trial) {
  TrialRate rate{trial.trial, {}, 0.0};
  double samples = 0, seconds = 0;
  for (const auto* e : compared_epochs(trial)) {
    rate.epochs.push_back(e->epoch);
    samples += static_cast<double>(e->timed_samples), seconds += e->seconds;
  }
  rate.samples_per_second = seconds > 0 ? samples / seconds : 0.0;
  return rate;
}

struct ModeTrials {
  amp::PrecisionMode mode;
  std::vector<const TrialRecord*> trials;
  std::vector<double> throughputs;
};

ModeSummary summarize_mode(const ModeTrials& m) {
  ModeSummary s;
  s.mode = m.mode;
  s.trials = static_cast<int64_t>(m.trials.size());
  std::vector<double> rates, seconds, steps, val_losses, val_accuracies, perplexities, cpu_shares, waits;
  for (const auto* trial : m.trials) {
    auto epochs = compared_epochs(*trial);
    s.trials_compared.push_back(compared_rate(*trial));
    if (s.epochs_compared.empty()) s.epochs_compared = s.trials_compared.back().epochs;
    for (const auto* e : epochs) {
      rates.push_back(e->samples_per_second);
      seconds.push_back(e->seconds);
      steps.insert(steps.end(), e->step_seconds.begin(), e->step_seconds.end());
      cpu_shares.push_back(e->cpu.cpu_share);
      if (e->cpu.run_queue_wait_share) waits.push_back(*e->cpu.run_queue_wait_share);
    }
    s.peak_bytes = std::max(s.peak_bytes, trial->memory.peak_bytes);
    if (trial->memory.static_bytes) {
      s.static_bytes = std::max(s.static_bytes.value_or(0), *trial->memory.static_bytes);
      s.activation_bytes = std::max(s.activation_bytes.value_or(0), *trial->memory.activation_peak_bytes());
    }
    val_losses.push_back(trial->epochs.back().val_loss);
    val_accuracies.push_back(trial->epochs.back().val_accuracy);
    if (trial->epochs.back().val_perplexity) perplexities.push_back(*trial->epochs.back().val_perplexity);
  }
  s.samples_per_second = measure::summarize_samples(rates);
  s.epoch_seconds = measure::summarize_samples(seconds);
  if (!steps.empty()) {
    s.step_seconds = StepPercentiles{*measure::quantile(steps, 0.5), *measure::quantile(steps, 0.9),
                                     *measure::quantile(steps, 0.99)};
  }
  s.cpu_share = measure::median(cpu_shares);
  if (!waits.empty()) s.run_queue_wait_share = *std::max_element(waits.begin(), waits.end());
  s.val_loss = *measure::median(val_losses);
  s.val_accuracy = *measure::median(val_accuracies);
  if (!perplexities.empty()) s.val_perplexity = *measure::median(perplexities);
  return s;
}

// The finished trials of each mode with any, in the order the modes first ran.
std::vector<ModeTrials> finished_trials_by_mode(const std::vector<TrialRecord>& trials) {
  std::vector<ModeTrials> modes;
  for (auto mode : modes_in_run_order(trials)) {
    ModeTrials m{mode, {}, {}};
    for (const auto& trial : trials) {
      if (trial.mode != mode || !trial.finished()) continue;
      m.trials.push_back(&trial);
      m.throughputs.push_back(compared_rate(trial).samples_per_second);
    }
    if (!m.trials.empty()) modes.push_back(std::move(m));
  }
  return modes;
}

std::optional<double> ratio(std::optional<int64_t> a, std::optional<int64_t> b) {
  if (!a || !b || *b <= 0) return std::nullopt;
  return double(*a) / double(*b);
}

// A mode against the one its row says it is also read against (an fp8 mode against the bf16 it adds float8
// linear layers to, a pure bf16 mode against the mixed bf16 it replaces): the same ratio of medians and
// bootstrap interval as against fp32, and the static memory.
void compare_with_also_against(const ModeTrials& m, const std::vector<ModeTrials>& modes, ModeSummary& s) {
  const auto against = amp::recipe_of(m.mode).also_against;
  if (!against) return;
  const auto other =
      std::find_if(modes.begin(), modes.end(), [&](const ModeTrials& t) { return t.mode == *against; });
  if (other == modes.end()) return;
  const double other_rate = *measure::median(other->throughputs);
  if (other_rate > 0) s.speedup_vs_bf16 = *measure::median(m.throughputs) / other_rate;
  s.speedup_vs_bf16_interval = measure::bootstrap_ratio_of_medians(m.throughputs, other->throughputs);
  s.static_ratio_vs_bf16 = ratio(s.static_bytes, summarize_mode(*other).static_bytes);
}

// An emulated mode's time is the emulation's cost: no speed-up, TFLOP/s or MFU is read from it (its
// samples/s stay, as what the emulation measured).
void forget_speed(ModeSummary& s) {
  s.speedup_vs_fp32.reset();
  s.speedup_interval.reset();
  s.speedup_vs_bf16.reset();
  s.speedup_vs_bf16_interval.reset();
  s.achieved_tflops.reset();
  s.mfu.reset();
}

// Whether the mode's products were emulated: its support said so (amp::ModeCaveat::Kind::emulated).
bool ran_emulated(const train::ExperimentResult& measured, amp::PrecisionMode mode) {
  const auto caveat = measured.mode_caveats.find(mode);
  return caveat != measured.mode_caveats.end() && caveat->second.kind == amp::ModeCaveat::Kind::emulated;
}

void summarize_audit(const train::ExperimentResult& measured, ModeSummary& s) {
  for (const auto& audit : measured.update_audits) {
    if (audit.mode != s.mode) continue;
    s.lost_update_share = audit.lost_share();
    s.lost_update_mass = audit.lost_mass();
  }
}

}  // namespace

size_t first_compared_epoch(size_t epochs) { return epochs > 1 ? 1 : 0; }

std::vector<amp::PrecisionMode> modes_in_run_order(const std::vector<TrialRecord>& trials) {
  std::vector<amp::PrecisionMode> modes;
  for (const auto& trial : trials)
    if (std::find(modes.begin(), modes.end(), trial.mode) == modes.end()) modes.push_back(trial.mode);
  return modes;
}

std::vector<ModeSummary> summarize(const RunContext& context, const train::ExperimentResult& measured) {
  const auto modes = finished_trials_by_mode(measured.trials);
  const auto baseline = std::find_if(modes.begin(), modes.end(),
                                     [](const ModeTrials& m) { return m.mode == amp::PrecisionMode::fp32; });

  std::vector<ModeSummary> out;
  for (const auto& m : modes) {
    auto s = summarize_mode(m);
    if (baseline != modes.end()) {
      auto base = summarize_mode(*baseline);
      double base_rate = *measure::median(baseline->throughputs);
      if (base_rate > 0) s.speedup_vs_fp32 = *measure::median(m.throughputs) / base_rate;
      if (m.mode != baseline->mode) {
        s.speedup_interval = measure::bootstrap_ratio_of_medians(m.throughputs, baseline->throughputs);
      }
      if (base.peak_bytes > 0) s.memory_ratio_vs_fp32 = double(s.peak_bytes) / double(base.peak_bytes);
      s.activation_ratio_vs_fp32 = ratio(s.activation_bytes, base.activation_bytes);
      s.static_ratio_vs_fp32 = ratio(s.static_bytes, base.static_bytes);
      s.val_loss_delta_vs_fp32 = s.val_loss - base.val_loss;
      s.fidelity_noise_floor = fidelity_noise_floor(measured);
    }
    compare_with_also_against(m, modes, s);
    summarize_audit(measured, s);
    s.fidelity = summarize_fidelity(m.mode, measured, context.fidelity_tolerance);
    if (auto cosine = measured.grad_cosine_vs_fp32.find(m.mode); cosine != measured.grad_cosine_vs_fp32.end())
      s.grad_cosine_vs_fp32 = cosine->second;
    for (const auto& p : measured.profiles) {
      if (p.mode == m.mode && p.profile)
        s.low_precision_flop_share = p.profile->precision.low_precision_flop_share;
    }
    if (context.train_flops_per_sample) {
      s.achieved_tflops = *context.train_flops_per_sample * *measure::median(m.throughputs) / 1e12;
      if (auto peak = context.peak_tflops.find(m.mode); peak != context.peak_tflops.end()) {
        s.peak_tflops = peak->second;
        s.mfu = *s.achieved_tflops / peak->second;
      }
    }
    s.emulated = ran_emulated(measured, m.mode);
    if (s.emulated) forget_speed(s);
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace ampbench::report
