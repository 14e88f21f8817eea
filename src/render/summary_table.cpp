#include "render/summary_table.h"

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "report/summary.h"

namespace ampbench::report {

namespace {

using train::TrialRecord;

template <typename T>
std::string or_dash(const std::optional<T>& value, const char* pattern) {
  return value ? util::format_number(pattern, static_cast<double>(*value)) : "-";
}

std::string mebibytes(int64_t bytes) {
  return util::format_number("%.1f MiB", static_cast<double>(bytes) / (1024.0 * 1024.0));
}

std::string speedup_text(const ModeSummary& s) {
  if (s.emulated) return "emulated";
  if (!s.speedup_vs_fp32) return "-";
  std::string text = util::format_number("%.2fx", *s.speedup_vs_fp32);
  if (s.speedup_interval) {
    text += util::format_number(" [%.2f", s.speedup_interval->low) +
            util::format_number("-%.2f]", s.speedup_interval->high);
  }
  return text;
}

std::string interval_text(const std::optional<measure::Interval>& interval) {
  if (!interval) return "-";
  return util::format_number("[%+.4f, ", interval->low) + util::format_number("%+.4f]", interval->high);
}

// fail and inconclusive in capitals: they are what a reader must act on.
std::string verdict_text(const std::optional<FidelityVerdict>& verdict) {
  if (!verdict) return "-";
  if (*verdict == FidelityVerdict::pass) return "pass";
  return *verdict == FidelityVerdict::fail ? "FAIL" : "INCONCLUSIVE";
}

}  // namespace

util::TextRows summary_table(const RunReport& report) {
  util::TextRows rows{{"mode", "trials", "epoch time", "samples/s", "speed-up [95% CI]", "cv", "TFLOP/s",
                       "MFU", "peak memory", "memory ratio", "activations", "activation ratio"}};
  // One row per mode in the order the modes ran: its figures, or the status of a mode that finished none.
  for (auto mode : modes_in_run_order(report.measured.trials)) {
    auto s = std::find_if(report.summary.begin(), report.summary.end(),
                          [&](const ModeSummary& summary) { return summary.mode == mode; });
    if (s == report.summary.end()) {
      std::vector<std::string> row(rows.front().size(), "-");
      row[0] = std::string(amp::to_string(mode));
      row[1] = train::to_string(std::find_if(report.measured.trials.begin(), report.measured.trials.end(),
                                             [&](const TrialRecord& t) { return t.mode == mode; })
                                    ->status);
      rows.push_back(row);
      continue;
    }
    rows.push_back(
        {std::string(amp::to_string(s->mode)), std::to_string(s->trials),
         or_dash(s->epoch_seconds.median, "%.3f s"), or_dash(s->samples_per_second.median, "%.1f"),
         speedup_text(*s),
         s->samples_per_second.cv ? util::format_number("%.1f%%", 100.0 * *s->samples_per_second.cv) : "-",
         or_dash(s->achieved_tflops, "%.3g"), s->mfu ? util::format_number("%.1f%%", 100.0 * *s->mfu) : "-",
         mebibytes(s->peak_bytes), or_dash(s->memory_ratio_vs_fp32, "%.2f"),
         s->activation_bytes ? mebibytes(*s->activation_bytes) : "-",
         or_dash(s->activation_ratio_vs_fp32, "%.2f")});
  }
  return rows;
}

util::TextRows fidelity_table(const RunReport& report) {
  util::TextRows rows{{"mode", "seeds", "val loss", "val loss delta", "delta 95% CI", "fidelity",
                       "grad cosine", "val acc", "perplexity", "loss scale", "skipped steps"}};
  for (const auto& s : report.summary) {
    // fp16's scale and skipped steps as they stood at the end of its last trial.
    const TrialRecord* last = nullptr;
    for (const auto& t : report.measured.trials) {
      if (t.mode == s.mode && t.finished()) last = &t;
    }
    const auto& final_epoch = last->epochs.back();
    const auto& f = s.fidelity;
    rows.push_back({std::string(amp::to_string(s.mode)), std::to_string(f.seeds),
                    or_dash(f.val_loss.mean, "%.4f"), or_dash(f.delta_mean, "%+.4f"),
                    interval_text(f.delta_interval), verdict_text(f.verdict),
                    or_dash(s.grad_cosine_vs_fp32, "%.6f"), or_dash(f.val_accuracy_mean, "%.3f"),
                    or_dash(f.val_perplexity_mean, "%.2f"), or_dash(final_epoch.loss_scale, "%g"),
                    or_dash(final_epoch.skipped_steps, "%.0f")});
  }
  return rows;
}

// What the fidelity figures are over, and what its verdict needs.
std::string fidelity_footnote(const RunReport& report) {
  const auto tolerance = util::format_number("%g", report.context.fidelity_tolerance);
  const auto& first = report.summary.front();
  std::string text =
      "val loss, delta and acc: means over seeds (at the run's seed, the median over trials); "
      "fidelity pass: the delta's 95% interval within +-" +
      tolerance + ", FAIL: wholly outside it";
  if (first.fidelity_noise_floor)
    text +=
        util::format_number("; noise floor (fp32's seed-to-seed stddev) %.4f", *first.fidelity_noise_floor);
  else
    text += "; no noise floor (fewer than two fp32 seeds): one seed passes at |delta| <= " + tolerance;
  // A reference model draws its initial weights from each seed; an archive holds one set.
  if (report.context.archive && first.fidelity.seeds > 1)
    text +=
        "; the exported model starts every seed from its archive's weights: seeds vary the data order and "
        "dropout only";
  return text;
}

// What each mode got of the CPU over its compared epochs: "CPU time used of what the threads could use:
// fp32 97%, bf16 96%; most time waiting for a CPU in an epoch: 0.4%".
std::string cpu_footnote(const RunReport& report) {
  std::string used, waited;
  for (const auto& s : report.summary) {
    const std::string mode(amp::to_string(s.mode));
    if (s.cpu_share)
      used += (used.empty() ? "" : ", ") + mode + util::format_number(" %.0f%%", 100 * *s.cpu_share);
    if (s.run_queue_wait_share)
      waited +=
          (waited.empty() ? "" : ", ") + mode + util::format_number(" %.1f%%", 100 * *s.run_queue_wait_share);
  }
  std::string text = "CPU time used of what the threads could use: " + used;
  if (!waited.empty()) text += "; most time waiting for a CPU in an epoch: " + waited;
  return text;
}

std::string summary_footnote(const RunReport& report) {
  const auto& trials = report.measured.trials;
  if (report.summary.empty() || trials.empty()) return "no trial finished";
  const auto& compared = report.summary.front().epochs_compared;
  std::ostringstream text;
  text << "medians over trials and epoch" << (compared.size() > 1 ? "s " : " ") << compared.front();
  if (compared.size() > 1) text << "-" << compared.back();
  if (compared.front() > 1) text << " (epoch 1 left out)";
  // A skipped or failed trial may have measured nothing; a summarised mode has a finished trial.
  const auto finished = std::find_if(trials.begin(), trials.end(),
                                     [](const TrialRecord& t) { return t.status == train::TrialStatus::ok; });
  text << "; memory above the staged data, by " << finished->memory.probe
       << "; activations = peak - (weights + gradients + optimizer state)";
  if (const auto& flops = report.context.train_flops_per_sample) {
    text << "; TFLOP/s from " << util::format_number("%.4g", *flops / 1e9)
         << " GFLOP per training sample (analytical)";
  }
  text << "; " << cpu_footnote(report) << "; " << fidelity_footnote(report);
  return text.str();
}

}  // namespace ampbench::report
