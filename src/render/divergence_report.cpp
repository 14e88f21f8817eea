#include "render/divergence_report.h"

#include <spdlog/fmt/fmt.h>

#include "report/json_values.h"

namespace ampbench::report {
namespace {

using numerics::NonFiniteOp;

std::string made(const NonFiniteOp& op) {
  return op.made_inf && op.made_nan ? "inf and NaN" : op.made_inf ? "inf" : "NaN";
}

nlohmann::json tensors_json(const std::vector<numerics::TensorFacts>& tensors) {
  auto out = nlohmann::json::array();
  for (const auto& t : tensors) out.push_back({{"dtype", t.dtype}, {"shape", t.shape}});
  return out;
}

nlohmann::json op_json(const std::optional<NonFiniteOp>& op) {
  if (!op) return nullptr;
  return {{"phase", numerics::to_string(op->phase)},
          {"op", op->op},
          {"backward_node", text_or_null(op->backward_node)},
          {"made", made(*op)},
          {"inputs", tensors_json(op->inputs)},
          {"outputs", tensors_json(op->outputs)},
          {"largest_finite_input", optional_json(op->largest_input)},
          {"format_max", optional_json(op->format_max)},
          {"module", text_or_null(op->site.module)},
          {"in_module", op->site.in_module},
          {"node", text_or_null(op->site.node)}};
}

std::string tensors_text(const std::vector<numerics::TensorFacts>& tensors) {
  std::string out;
  for (const auto& t : tensors) {
    if (!out.empty()) out += ", ";
    std::string shape;
    for (const auto size : t.shape) shape += (shape.empty() ? "" : ",") + std::to_string(size);
    out += t.dtype + "[" + shape + "]";
  }
  return out.empty() ? "nothing" : out;
}

std::string site_text(const numerics::OpSite& site) {
  if (!site.node.empty())
    return "node " + site.node + (site.module.empty() ? "" : " (module " + site.module + ")");
  if (site.module.empty()) return "";
  return site.in_module ? "in " + site.module : "after " + site.module + ", with no weights of its own";
}

std::string op_text(const NonFiniteOp& op) {
  auto where = std::string(numerics::to_string(op.phase));
  if (!op.backward_node.empty()) where += " in " + op.backward_node;
  if (const auto site = site_text(op.site); !site.empty()) where += ", " + site;
  auto text = fmt::format("{} made {} ({}): {} -> {}", op.op, made(op), where, tensors_text(op.inputs),
                          tensors_text(op.outputs));
  if (op.largest_input && op.format_max)
    text += fmt::format("; largest finite input {:.6g}, the format's largest {:.6g}", *op.largest_input,
                        *op.format_max);
  return text;
}

std::string step_text(const train::ObservedStep& step) {
  auto text =
      fmt::format("step {} ({}{}): ", step.step, step.event, step.seen_again ? "" : ", not seen again");
  return text + (step.first_op ? op_text(*step.first_op)
                               : "no op made inf or NaN from finite inputs (they came in with the data, the "
                                 "state, or a non-finite number an op was handed)");
}

// `kind`: "trial" (a timed trial) or "fidelity seed" (its number is the seed's index).
std::string diagnosis_line(const train::TrialRecord& trial, const char* kind) {
  const auto& d = *trial.divergence;
  auto line = fmt::format("{} {} {}: {}. ", amp::to_string(trial.mode), kind, trial.trial, d.trigger);
  if (d.failure) return line + "The replay failed: " + *d.failure;
  line += d.reproduced ? "Reproduced by an untimed replay (" + d.replay_saw + ")"
                       : "NOT reproduced: " + d.replay_saw +
                             " (a non-deterministic op, or a fault of the trial alone)";
  for (const auto& step : d.steps)
    line += "; " + std::string(d.reproduced ? "" : "in the replay, ") + step_text(step);
  return line;
}

}  // namespace

nlohmann::json divergence_json(const std::optional<train::DivergenceDiagnosis>& diagnosis) {
  if (!diagnosis) return nullptr;
  auto steps = nlohmann::json::array();
  for (const auto& s : diagnosis->steps)
    steps.push_back({{"step", s.step},
                     {"event", s.event},
                     {"seen_again", s.seen_again},
                     {"first_op", op_json(s.first_op)}});
  return {{"trigger", diagnosis->trigger},
          {"reproduced", diagnosis->reproduced},
          {"replay_saw", diagnosis->replay_saw},
          {"failure", optional_json(diagnosis->failure)},
          {"steps", steps}};
}

std::vector<std::string> divergence_lines(const std::vector<train::TrialRecord>& trials,
                                          const std::vector<train::TrialRecord>& fidelity_trials) {
  std::vector<std::string> lines;
  for (const auto& trial : trials) {
    if (trial.divergence) lines.push_back(diagnosis_line(trial, "trial"));
  }
  for (const auto& trial : fidelity_trials) {
    if (trial.divergence) lines.push_back(diagnosis_line(trial, "fidelity seed"));
  }
  return lines;
}

}  // namespace ampbench::report
