#include "render/markdown_report.h"

#include <sstream>

#include "profile/profile_tables.h"
#include "render/departure_report.h"
#include "render/divergence_report.h"
#include "render/float8_table.h"
#include "render/numerics_report.h"
#include "render/pure_bf16_table.h"
#include "render/summary_table.h"
#include "util/text_table.h"

namespace ampbench::report {

std::string to_markdown(const RunReport& report) {
  std::ostringstream out;
  const auto& env = report.context.environment;
  out << "### ampbench: " << report.context.name << "\n\n";
  out << "`" << report.context.model << "` on " << env.device << " (" << env.device_name << "), LibTorch "
      << env.libtorch_version << ", " << env.build_type << " build, ampbench " << env.ampbench_version << " ("
      << env.git_commit << "), config " << env.config_hash << "\n\n";
  out << model_line(report) << "\n\n";
  if (const auto& signal = report.measured.stopped_by) {
    out << "**Partial report: stopped by " << *signal << "; only finished epochs are shown.**\n\n";
  } else if (!report.measured.complete) {
    out << "**Partial report: not every trial has finished yet.**\n\n";
  }

  out << util::render_markdown_table(summary_table(report));
  if (!report.summary.empty()) out << "\n" << util::render_markdown_table(fidelity_table(report));
  out << "\n" << summary_footnote(report) << ".\n";
  if (const auto float8 = float8_layers_table(report); !float8.empty()) {
    out << "\n**float8 layers** (last training step's amaxes)\n\n"
        << util::render_markdown_table(float8) << "\n"
        << float8_footnote(report);
  }
  if (const auto pure = pure_bf16_table(report); !pure.empty()) {
    out << "\n**Pure bf16**\n\n" << util::render_markdown_table(pure) << "\n" << pure_bf16_footnote(report);
  }
  const auto& profiles = report.measured.profiles;
  if (const auto by_class = profile::time_by_class_table(profiles); !by_class.empty()) {
    out << "\n**Where the time went**\n\n"
        << util::render_markdown_table(by_class) << "\n"
        << util::render_markdown_table(profile::top_ops_table(profiles, profile::kTopOpsShown)) << "\n"
        << util::render_markdown_table(profile::precision_audit_table(profiles)) << "\n"
        << profile::profile_footnote(profiles) << ".\n";
  }
  if (const auto& numerics = report.measured.numerics; !numerics.empty()) {
    out << "\n**How close the numbers ran to their format's limits**\n\n";
    for (const auto& line : numerics_lines(numerics)) out << "- " << line << "\n";
    if (const auto layers = numerics_layers_table(numerics); !layers.empty())
      out << "\n" << util::render_markdown_table(layers);
    if (const auto parameters = numerics_parameters_table(numerics); !parameters.empty())
      out << "\n" << util::render_markdown_table(parameters);
    for (const auto& line : departure_lines(numerics)) out << "\n- " << line << "\n";
    if (const auto departures = departures_table(numerics); !departures.empty())
      out << "\n" << util::render_markdown_table(departures);
    if (const auto footnote = numerics_footnote(numerics); !footnote.empty())
      out << "\n" << footnote << ".\n";
  }
  if (const auto lines = divergence_lines(report.measured.trials, report.measured.fidelity_trials);
      !lines.empty()) {
    out << "\n**Where the numbers went wrong**\n\n";
    for (const auto& line : lines) out << "- " << line << "\n";
  }
  if (!report.gates.empty()) {
    out << "\n**Gates**\n\n";
    for (const auto& g : report.gates)
      out << "- " << (g.passed ? "pass" : "**FAIL**") << ": " << g.message << "\n";
  }
  if (!report.warnings.empty()) {
    out << "\n**Warnings**\n\n";
    for (const auto& w : report.warnings) out << "- " << w.message << "; " << w.advice << "\n";
  }
  return out.str();
}

}  // namespace ampbench::report
