#include "report/fidelity.h"

#include <map>

#include "measure/equivalence.h"
#include "report/format_applied.h"

namespace ampbench::report {
namespace {

using train::TrialRecord;

struct SeedFigures {
  double val_loss = 0, val_accuracy = 0;
  std::optional<double> val_perplexity;
  bool never_stepped = false;  // fp16: a trial at this seed skipped every optimizer step
};
using FiguresBySeed = std::map<uint64_t, SeedFigures>;

SeedFigures final_figures(const std::vector<const TrialRecord*>& trials) {
  std::vector<double> losses, accuracies, perplexities;
  bool never_stepped = false;
  for (const auto* t : trials) {
    const auto& last = t->epochs.back();
    losses.push_back(last.val_loss);
    accuracies.push_back(last.val_accuracy);
    if (last.val_perplexity) perplexities.push_back(*last.val_perplexity);
    never_stepped = never_stepped || (t->loss_scale_trace && t->loss_scale_trace->never_stepped());
  }
  return {*measure::median(losses), *measure::median(accuracies), measure::median(perplexities),
          never_stepped};
}

std::vector<const TrialRecord*> finished(const std::vector<TrialRecord>& trials, amp::PrecisionMode mode) {
  std::vector<const TrialRecord*> out;
  for (const auto& t : trials) {
    if (t.mode == mode && t.finished()) out.push_back(&t);
  }
  return out;
}

FiguresBySeed figures_by_seed(amp::PrecisionMode mode, const train::ExperimentResult& measured) {
  FiguresBySeed out;
  if (const auto timed = finished(measured.trials, mode); !timed.empty())
    out[timed.front()->seed] = final_figures(timed);
  for (const auto* t : finished(measured.fidelity_trials, mode)) out[t->seed] = final_figures({t});
  return out;
}

FidelityVerdict verdict_of(measure::Equivalence e) {
  switch (e) {
    case measure::Equivalence::equivalent:
      return FidelityVerdict::pass;
    case measure::Equivalence::different:
      return FidelityVerdict::fail;
    case measure::Equivalence::undecided:
      break;
  }
  return FidelityVerdict::inconclusive;
}

void judge_against(const FiguresBySeed& mode, const FiguresBySeed& fp32, double tolerance,
                   FidelitySummary& out) {
  std::vector<double> differences;
  for (const auto& [seed, figures] : mode) {
    if (auto base = fp32.find(seed); base != fp32.end())
      differences.push_back(figures.val_loss - base->second.val_loss);
  }
  out.paired_seeds = static_cast<int64_t>(differences.size());
  if (differences.empty()) return;
  const auto judged = measure::judge_equivalence(differences, tolerance);
  out.delta_mean = judged.mean_difference;
  out.delta_interval = judged.interval;
  out.verdict = verdict_of(judged.verdict);
  out.seeds_needed = judged.samples_needed;
  // A mode that never took an optimizer step did not train: however close its loss, it cannot pass.
  if (out.seeds_never_stepped > 0) {
    out.verdict = FidelityVerdict::fail;
    out.seeds_needed.reset();
  }
}

}  // namespace

FidelitySummary summarize_fidelity(amp::PrecisionMode mode, const train::ExperimentResult& measured,
                                   double tolerance) {
  const auto figures = figures_by_seed(mode, measured);
  FidelitySummary out;
  out.tolerance = tolerance;
  out.seeds = static_cast<int64_t>(figures.size());
  std::vector<double> losses, accuracies, perplexities;
  for (const auto& [seed, f] : figures) {
    out.seeds_never_stepped += f.never_stepped ? 1 : 0;
    losses.push_back(f.val_loss);
    accuracies.push_back(f.val_accuracy);
    if (f.val_perplexity) perplexities.push_back(*f.val_perplexity);
  }
  out.val_loss = measure::summarize_samples(losses);
  out.val_accuracy_mean = measure::mean(accuracies);
  out.val_perplexity_mean = measure::mean(perplexities);
  if (mode != amp::PrecisionMode::fp32)
    judge_against(figures, figures_by_seed(amp::PrecisionMode::fp32, measured), tolerance, out);
  // A float8 or float4 mode that ran every layer in bf16 has no verdict of its format to give.
  if (format_not_applied(mode, measured)) {
    out.verdict.reset();
    out.seeds_needed.reset();
  }
  return out;
}

std::optional<double> fidelity_noise_floor(const train::ExperimentResult& measured) {
  std::vector<double> losses;
  for (const auto& [seed, f] : figures_by_seed(amp::PrecisionMode::fp32, measured))
    losses.push_back(f.val_loss);
  return measure::stddev(losses);
}

}  // namespace ampbench::report
