#include "report/format_applied.h"

#include "util/text_table.h"

namespace ampbench::report {

std::optional<std::string> format_not_applied(amp::PrecisionMode mode,
                                              const train::ExperimentResult& measured) {
  if (!amp::recipe_of(mode).linear_recipe) return std::nullopt;
  const train::TrialRecord* first = nullptr;
  for (const auto* trials : {&measured.trials, &measured.fidelity_trials}) {
    for (const auto& t : *trials) {
      if (t.mode != mode || !t.finished() || !t.float8) continue;
      for (const auto& layer : t.float8->layers) {
        if (layer.float8_calls > 0) return std::nullopt;
      }
      if (!first) first = &t;
    }
  }
  if (!first) return std::nullopt;
  std::vector<std::string> layers;
  for (const auto& layer : first->float8->layers)
    layers.push_back(layer.name + (layer.bf16_why ? " (" + *layer.bf16_why + ")" : ""));
  return layers.empty() ? std::string("the model ran no linear layer") : util::join(layers, ", ");
}

}  // namespace ampbench::report
