#pragma once

// The families of modes that tests cover, taken from the recipe table: a new row joins every test of its
// family without an edit there.
#include <string>
#include <vector>

#include "amp/precision_mode.h"

namespace ampbench::testing {

// Float8 products on the device's kernels everywhere the mode runs (fp8, fp8-rowwise).
inline std::vector<amp::PrecisionMode> float8_modes() {
  return amp::modes_where([](const amp::PrecisionRecipe& r) { return r.linear_recipe && !r.emulated; });
}

// The block-scaled formats: products in their format on the GPU's kernels where it has them, emulated
// elsewhere (mxfp8, nvfp4, fp8-blockwise).
inline std::vector<amp::PrecisionMode> block_scaled_modes() {
  return amp::modes_where([](const amp::PrecisionRecipe& r) { return r.linear_recipe && r.emulated; });
}

// Every mode whose linear layers run in a format below 16 bits: float8 and the block-scaled formats.
inline std::vector<amp::PrecisionMode> low_bit_modes() {
  return amp::modes_where([](const amp::PrecisionRecipe& r) { return r.linear_recipe.has_value(); });
}

// The modes whose weights are stored in 16 bits, with the lost-update audit (the pure bf16 modes).
inline std::vector<amp::PrecisionMode> audited_modes() {
  return amp::modes_where([](const amp::PrecisionRecipe& r) { return r.audited; });
}

// The modes' names after `first`, as a config's precision.modes lists them.
inline std::vector<std::string> mode_names(const std::vector<amp::PrecisionMode>& modes,
                                           std::vector<std::string> first = {}) {
  for (auto mode : modes) first.emplace_back(amp::to_string(mode));
  return first;
}

// The modes' names joined with commas, as --modes takes them.
inline std::string mode_list(const std::vector<amp::PrecisionMode>& modes) {
  std::string list;
  for (const auto& name : mode_names(modes)) list += (list.empty() ? "" : ",") + name;
  return list;
}

}  // namespace ampbench::testing
