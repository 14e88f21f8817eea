#include "compare/compare_render.h"

#include <sstream>

#include "util/text_table.h"

namespace ampbench::compare {

namespace {

std::string change_cell(const Change& c, ChangeShown show) {
  std::string text = show(c.change);
  if (c.interval) text += " [" + show(c.interval->low) + ", " + show(c.interval->high) + "]";
  return text;
}

std::string mebibytes(double bytes) { return util::format_number("%.1f MiB", bytes / 1048576.0); }

std::string verdict_cell(const Change& c) { return std::string(to_string(c.verdict)); }

util::TextRows rows(const Comparison& c) {
  util::TextRows out{{"mode", "base samples/s", "new samples/s", "slowdown [95% CI]", "speed", "base peak",
                      "new peak", "memory change", "memory", "base val loss", "new val loss",
                      "val loss change [95% CI]", "val loss"}};
  const std::string regression(to_string(ChangeVerdict::regression));
  for (const auto& m : c.modes) {
    if (m.unfinished_in_new) {
      out.push_back({m.mode, util::format_number("%.1f", m.speed.base), "-", "-", regression,
                     mebibytes(m.memory.base), "-", "-", "-", util::format_number("%.4f", m.val_loss.base),
                     "-", "-", "-"});
      continue;
    }
    out.push_back({m.mode, util::format_number("%.1f", m.speed.base),
                   util::format_number("%.1f", m.speed.next), change_cell(m.speed, percent_text),
                   verdict_cell(m.speed), mebibytes(m.memory.base), mebibytes(m.memory.next),
                   m.memory.base > 0 ? percent_text(m.memory.change) : "-", verdict_cell(m.memory),
                   util::format_number("%.4f", m.val_loss.base), util::format_number("%.4f", m.val_loss.next),
                   change_cell(m.val_loss, loss_text), verdict_cell(m.val_loss)});
  }
  return out;
}

// The limits in force, said once under the table.
std::string limits_line(const Comparison& c) {
  auto said = [](const Limit& limit, ChangeShown show, const char* otherwise) {
    return limit_text(show, limit.value) +
           (limit.is_default ? std::string(" (") + otherwise + ")" : std::string());
  };
  return "limits: slowdown " + said(c.max_slowdown, percent_text, "default") + ", peak memory " +
         said(c.max_memory_increase, percent_text, "default") + ", val loss " +
         said(c.max_val_loss_increase, loss_text, "BASE's fidelity tolerance") +
         "; a change past its limit is a regression when its 95% interval excludes no change (memory: "
         "exactly)";
}

// Every finding, a partial NEW first, each as (verdict name, text).
std::vector<std::pair<std::string, std::string>> findings(const Comparison& c) {
  std::vector<std::pair<std::string, std::string>> out;
  if (c.new_incomplete) out.emplace_back(to_string(ChangeVerdict::regression), *c.new_incomplete);
  for (const auto& m : c.modes) {
    for (const auto& f : m.findings) out.emplace_back(to_string(f.verdict), f.text);
  }
  return out;
}

nlohmann::json limit_json(const Limit& limit) {
  return {{"value", limit.value}, {"default", limit.is_default}};
}

nlohmann::json change_json(const Change& c) {
  return {{"base", c.base},
          {"new", c.next},
          {"change", c.change},
          {"interval_95", c.interval ? nlohmann::json{c.interval->low, c.interval->high} : nlohmann::json()},
          {"base_samples", c.base_samples},
          {"new_samples", c.new_samples},
          {"limit", limit_json(c.limit)},
          {"verdict", to_string(c.verdict)}};
}

nlohmann::json mode_json(const ModeComparison& m) {
  nlohmann::json found = nlohmann::json::array();
  for (const auto& f : m.findings) found.push_back({{"verdict", to_string(f.verdict)}, {"text", f.text}});
  const bool judged = !m.unfinished_in_new;
  return {
      {"mode", m.mode},
      {"unfinished_in_new", m.unfinished_in_new ? nlohmann::json(*m.unfinished_in_new) : nlohmann::json()},
      {"speed", judged ? change_json(m.speed) : nlohmann::json()},
      {"memory", judged ? change_json(m.memory) : nlohmann::json()},
      {"val_loss", judged ? change_json(m.val_loss) : nlohmann::json()},
      {"findings", found}};
}

}  // namespace

std::string comparison_to_console(const Comparison& comparison) {
  std::ostringstream out;
  out << util::render_aligned(rows(comparison)) << limits_line(comparison) << "\n";
  for (const auto& [verdict, text] : findings(comparison)) out << verdict << ": " << text << "\n";
  return out.str();
}

std::string comparison_to_markdown(const Comparison& comparison) {
  std::ostringstream out;
  out << "### ampbench compare\n\n"
      << util::render_markdown_table(rows(comparison)) << "\n"
      << limits_line(comparison) << ".\n";
  for (const auto& [verdict, text] : findings(comparison)) out << "\n- **" << verdict << "**: " << text;
  out << "\n";
  return out.str();
}

nlohmann::json comparison_to_json(const Comparison& comparison) {
  nlohmann::json modes = nlohmann::json::array();
  for (const auto& m : comparison.modes) modes.push_back(mode_json(m));
  return {{"compare_schema_version", kCompareSchemaVersion},
          {"base", comparison.base_name},
          {"new", comparison.new_name},
          {"verdict", to_string(comparison.verdict())},
          {"new_incomplete",
           comparison.new_incomplete ? nlohmann::json(*comparison.new_incomplete) : nlohmann::json()},
          {"limits",
           {{"max_slowdown", limit_json(comparison.max_slowdown)},
            {"max_memory_increase", limit_json(comparison.max_memory_increase)},
            {"max_val_loss_increase", limit_json(comparison.max_val_loss_increase)}}},
          {"modes", modes}};
}

}  // namespace ampbench::compare
