#include "cli/overrides.h"

#include "util/printable.h"

namespace ampbench::cli {
namespace {

// Sets doc/<keys...> = value, creating objects on the way, and records it.
void set_override(nlohmann::json& doc, const std::vector<std::string>& keys, const nlohmann::json& value,
                  const std::string& option, Overrides& overrides) {
  nlohmann::json* node = &doc;
  for (size_t i = 0; i + 1 < keys.size(); ++i) {
    if (!node->is_object()) return;
    node = &(*node)[keys[i]];
    if (node->is_null()) *node = nlohmann::json::object();
  }
  if (!node->is_object()) return;
  (*node)[keys.back()] = value;
  std::string path;
  for (const auto& key : keys) path += "/" + key;
  overrides.emplace_back(path, option);
}

}  // namespace

Overrides apply_overrides(nlohmann::json& doc, const CliOptions& options) {
  Overrides set;
  if (!options.modes.empty()) {
    std::vector<std::string> names;
    for (const auto& list : options.modes)
      for (auto& name : mode_names_in(list)) names.push_back(std::move(name));
    set_override(doc, {"precision", "modes"}, names, "--modes", set);
  }
  if (options.epochs) set_override(doc, {"train", "epochs"}, *options.epochs, "--epochs", set);
  if (options.repeats) set_override(doc, {"repeats"}, *options.repeats, "--repeats", set);
  if (options.fidelity_seeds) {
    set_override(doc, {"precision", "fidelity_seeds"}, *options.fidelity_seeds, "--fidelity-seeds", set);
  }
  if (options.device) set_override(doc, {"device"}, *options.device, "--device", set);
  if (options.out_dir) set_override(doc, {"output", "dir"}, *options.out_dir, "--out", set);
  if (options.seed) set_override(doc, {"seed"}, *options.seed, "--seed", set);
  if (options.profile_steps)
    set_override(doc, {"profile", "steps"}, *options.profile_steps, "--profile", set);
  if (options.numerics_steps)
    set_override(doc, {"numerics", "steps"}, *options.numerics_steps, "--numerics", set);
  if (options.threads) set_override(doc, {"train", "threads"}, *options.threads, "--threads", set);
  if (options.peak_tflops) {
    set_override(doc, {"peak_tflops"}, peak_tflops_json(*options.peak_tflops).value(), "--peak-tflops", set);
  }
  return set;
}

std::string config_error_line(const util::InputError& error, const Overrides& overrides) {
  const auto& where = error.where();
  std::string from;
  for (const auto& [path, option] : overrides) {
    if (where == path || where.rfind(path + "/", 0) == 0) from = " (from " + option + ")";
  }
  return "config error: " + (where.empty() ? "" : util::printable(where) + from + ": ") +
         util::printable(error.problem(), 400);
}

}  // namespace ampbench::cli
