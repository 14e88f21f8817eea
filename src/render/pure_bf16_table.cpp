#include "render/pure_bf16_table.h"

#include <cmath>

namespace ampbench::report {
namespace {

std::string ratio_text(const std::optional<double>& ratio) {
  return ratio ? util::format_number("%.2fx", *ratio) : "-";
}

std::string against_bf16_text(const ModeSummary& s) {
  if (!s.speedup_vs_bf16) return "-";
  std::string text = util::format_number("%.2fx", *s.speedup_vs_bf16);
  if (const auto& i = s.speedup_vs_bf16_interval)
    text += util::format_number(" [%.2f", i->low) + util::format_number("-%.2f]", i->high);
  return text;
}

std::string share_text(const std::optional<double>& share, const ModeSummary& s, const RunReport& report) {
  for (const auto& audit : report.measured.update_audits) {
    if (audit.mode != s.mode) continue;
    if (audit.failure) return "audit failed";
    if (!share) return "-";
    // A share that rounds to zero either side (the mass can come out a hair below it) shows as 0.0%.
    return util::format_number("%.1f%%", std::abs(*share) < 0.0005 ? 0.0 : 100 * *share);
  }
  return "-";
}

// As the fidelity table writes it: fail and inconclusive in capitals.
std::string verdict_text(const ModeSummary& s) {
  if (!s.fidelity.verdict) return "-";
  if (*s.fidelity.verdict == FidelityVerdict::pass) return "pass";
  return *s.fidelity.verdict == FidelityVerdict::fail ? "FAIL" : "INCONCLUSIVE";
}

}  // namespace

util::TextRows pure_bf16_table(const RunReport& report) {
  util::TextRows rows{{"mode", "static memory", "vs fp32", "vs bf16", "samples/s vs bf16 [95% CI]",
                       "updates lost", "update mass lost", "fidelity"}};
  for (const auto& s : report.summary) {
    if (!amp::recipe_of(s.mode).audited) continue;
    const auto bytes =
        s.static_bytes ? util::format_number("%.2f MiB", double(*s.static_bytes) / 1048576.0) : "-";
    rows.push_back({std::string(amp::to_string(s.mode)), bytes, ratio_text(s.static_ratio_vs_fp32),
                    ratio_text(s.static_ratio_vs_bf16), against_bf16_text(s),
                    share_text(s.lost_update_share, s, report), share_text(s.lost_update_mass, s, report),
                    verdict_text(s)});
  }
  if (rows.size() == 1) return {};
  return rows;
}

std::string pure_bf16_footnote(const RunReport& report) {
  if (pure_bf16_table(report).empty()) return "";
  return "static memory: weights, gradients and optimizer state held after the first optimizer step, "
         "measured by the allocator; updates lost: of the weight elements an exact update would have changed "
         "at " +
         std::to_string(train::kAuditedSteps) +
         " evenly spaced steps of an untimed replay of trial 1, the share whose stored bf16 weight (and "
         "Kahan "
         "compensation) stayed the same; update mass lost: the share of those updates' magnitude the stored "
         "weights did not take (stochastic rounding's lost updates are made good on average)\n";
}

}  // namespace ampbench::report
