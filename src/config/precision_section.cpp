#include "config/precision_section.h"

#include <algorithm>
#include <limits>

namespace ampbench::config {

using util::InputError;
using util::ObjectReader;

amp::PrecisionMode mode_at(const std::string& name, const std::string& where) {
  try {
    return amp::precision_mode_named(name);
  } catch (const InputError& e) {
    throw e.located(where);
  }
}

namespace {

amp::BlockRecipeOptions parse_block_recipe(ObjectReader& precision) {
  amp::BlockRecipeOptions out;
  ObjectReader mx = precision.object("mxfp8");
  const auto rounding = mx.string("scale_rounding", std::string(amp::to_string(out.mx_rounding)));
  if (rounding != "rceil" && rounding != "floor")
    throw InputError(mx.path_of("scale_rounding"),
                     "expected \"rceil\" or \"floor\", got \"" + rounding + "\"");
  out.mx_rounding = rounding == "rceil" ? amp::ScaleRounding::rceil : amp::ScaleRounding::floor;
  mx.finish();
  ObjectReader nvfp4 = precision.object("nvfp4");
  out.nvfp4_hadamard = nvfp4.boolean("hadamard", out.nvfp4_hadamard);
  out.nvfp4_weight_tiles_2d = nvfp4.boolean("weight_tiles_2d", out.nvfp4_weight_tiles_2d);
  out.nvfp4_stochastic = nvfp4.boolean("stochastic_rounding", out.nvfp4_stochastic);
  nvfp4.finish();
  return out;
}

amp::LayerFilter parse_layer_filter(ObjectReader filter) {
  amp::LayerFilter out;
  constexpr int64_t kMost = 1'000'000;
  out.keep_first = filter.integer("keep_first", out.keep_first, 0, kMost);
  out.keep_last = filter.integer("keep_last", out.keep_last, 0, kMost);
  out.min_features = filter.integer("min_features", out.min_features, 0, int64_t(1) << 40);
  filter.finish();
  return out;
}

}  // namespace

PrecisionConfig parse_precision(ObjectReader precision) {
  PrecisionConfig out;
  if (precision.has("modes")) {
    auto names = precision.string_list("modes", {});
    if (names.empty()) {
      throw InputError(precision.path_of("modes"), "expected at least one of " + amp::precision_mode_names());
    }
    out.modes.clear();
    for (size_t i = 0; i < names.size(); ++i) {
      std::string where = precision.path_of("modes") + "/" + std::to_string(i);
      const auto mode = mode_at(names[i], where);
      if (std::find(out.modes.begin(), out.modes.end(), mode) != out.modes.end()) {
        throw InputError(where, "mode \"" + names[i] + "\" is listed twice");
      }
      out.modes.push_back(mode);
    }
  }
  ObjectReader scaler = precision.object("grad_scaler");
  auto& s = out.grad_scaler;
  s.init_scale = scaler.number("init_scale", s.init_scale, 0.0, 1e38, true);
  s.growth_factor = scaler.number("growth_factor", s.growth_factor, 1.0, 1e6, true);
  s.backoff_factor = scaler.number("backoff_factor", s.backoff_factor, 0.0, 1.0, true);
  if (s.backoff_factor >= 1.0) {
    throw InputError(scaler.path_of("backoff_factor"), "expected a number > 0 and < 1, got 1");
  }
  s.growth_interval =
      scaler.integer("growth_interval", s.growth_interval, 1, std::numeric_limits<int32_t>::max());
  scaler.finish();
  out.fidelity_tolerance = precision.number("fidelity_tolerance", out.fidelity_tolerance, 0.0, 1e6);
  out.fidelity_seeds = precision.integer("fidelity_seeds", out.fidelity_seeds, 1, 1000);
  out.block_recipe = parse_block_recipe(precision);
  out.layer_filter = parse_layer_filter(precision.object("layer_filter"));
  precision.finish();
  return out;
}

nlohmann::json precision_json(const PrecisionConfig& p) {
  nlohmann::json modes = nlohmann::json::array();
  for (auto mode : p.modes) modes.push_back(std::string(amp::to_string(mode)));
  const auto& s = p.grad_scaler;
  nlohmann::json precision = {{"modes", modes},
                              {"grad_scaler",
                               {{"init_scale", s.init_scale},
                                {"growth_factor", s.growth_factor},
                                {"backoff_factor", s.backoff_factor},
                                {"growth_interval", s.growth_interval}}},
                              {"fidelity_tolerance", p.fidelity_tolerance},
                              {"fidelity_seeds", p.fidelity_seeds},
                              {"mxfp8", {{"scale_rounding", amp::to_string(p.block_recipe.mx_rounding)}}},
                              {"nvfp4",
                               {{"hadamard", p.block_recipe.nvfp4_hadamard},
                                {"weight_tiles_2d", p.block_recipe.nvfp4_weight_tiles_2d},
                                {"stochastic_rounding", p.block_recipe.nvfp4_stochastic}}},
                              {"layer_filter",
                               {{"keep_first", p.layer_filter.keep_first},
                                {"keep_last", p.layer_filter.keep_last},
                                {"min_features", p.layer_filter.min_features}}}};
  return precision;
}

}  // namespace ampbench::config
