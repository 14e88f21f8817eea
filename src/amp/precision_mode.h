#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <c10/core/ScalarType.h>
#include <nlohmann/json.hpp>

#include "amp/linear_recipe.h"
#include "optim/weight_rounding.h"

namespace ampbench::amp {

// The precision modes ampbench compares. Each is one row of the recipe table (precision_recipes()), which
// says everything a mode is; the rest of ampbench reads the row, never the mode's name. In the mixed modes
// weights stay fp32 (master weights); the pure bf16 modes keep the model, its gradients and the optimizer's
// state in bf16. The enum is the rows' key: a new mode is a value here and its row in precision_mode.cpp.
enum class PrecisionMode {
  fp32,
  tf32,
  fp16,
  bf16,
  fp8,
  fp8_rowwise,
  bf16_pure,
  bf16_pure_sr,
  bf16_pure_kahan,
  mxfp8,
  nvfp4,
  fp8_blockwise
};

// A CUDA GPU's compute capability.
struct ComputeCapability {
  int major = 0;
  int minor = 0;
  bool operator==(const ComputeCapability&) const = default;
};
bool at_least(const ComputeCapability& have, const ComputeCapability& need);
std::string to_string(const ComputeCapability& capability);

// The arithmetic a mode's matrix products want from the device: the column of a GPU's peak TFLOP/s
// (peak_flops.h), and what a CPU must have for the mode to run at its speed (mode_support.h).
enum class MatrixArithmetic { fp32, tf32, fp16, bf16, fp8, fp4 };
std::string_view to_string(MatrixArithmetic arithmetic);

// What guards a mode's gradients against its format's range: fp16 needs a GradScaler, the rest nothing.
enum class GradientGuard { none, grad_scaler };
std::string_view to_string(GradientGuard guard);

// One precision recipe: a row of the table. A field a new mode must decide has no default, so that a row
// that forgets it does not compile (-Wmissing-field-initializers, a warning the build fails on); a field
// whose default is what every mode but a few has carries it, and rows set it only where they differ.
struct PrecisionRecipe {
  PrecisionMode mode;
  std::string_view name;     // as configs, --modes and reports spell it
  std::string_view summary;  // a line for --list-modes
  // What autocast runs forward + loss in; empty: no autocast (fp32, tf32, the pure modes).
  std::optional<c10::ScalarType> autocast;
  // The format of the model's floating parameters and buffers, of its gradients and of the optimizer's state.
  c10::ScalarType weights;
  // How a weight in `weights` takes its update (fp32 weights: to nearest, as every optimizer does).
  optim::WeightRounding update_rounding = optim::WeightRounding::nearest;
  GradientGuard gradient_guard = GradientGuard::none;
  bool tf32;  // CUDA may run fp32 matmuls and convolutions in TF32
  // The float8 or float4 recipe of every linear layer's three products (float8_linear.h); empty: autocast's
  // dtype.
  std::optional<LinearRecipe> linear_recipe = std::nullopt;
  // Its products are emulated (block_scaled_linear.h: quantized, dequantized, multiplied) wherever
  // the device has no kernels for them (block_kernel_probe.h); emulated, its time is the emulation's cost,
  // not the format's speed, so no speed-up is read from it (ModeSummary::emulated says what a run did).
  bool emulated = false;
  // On CUDA, the compute capability without which the mode is skipped; empty: any GPU runs it.
  std::optional<ComputeCapability> needs_capability;
  MatrixArithmetic arithmetic;
  // The mode its speed-up and static memory are also read against (beside fp32), when that mode ran.
  std::optional<PrecisionMode> also_against = std::nullopt;
  bool in_default_set = false;  // run by a config that names no modes
  // Has the lost-update audit (passes/update_audit.h), which the plan runs for it: its weights are stored in
  // 16 bits, so rounding can lose an update.
  bool audited = false;
  // The 16-bit format the numerics pass measures the mode's activations and gradients against
  // (passes/numerics_pass.h: autocast's for the mixed modes and the float8 and float4 ones, the weights' for
  // the pure ones); empty: no pass.
  std::optional<c10::ScalarType> observed_format;
};

// One field of a row as report.json's `modes` and `--list-modes json` record it: declared once, so the
// row's JSON and the schema's description of it (tests/test_schemas.cpp writes docs/report.schema.json's
// `modes` from this list) cannot drift apart.
struct RecipeField {
  std::string_view name;
  std::string_view description;  // empty: the schema gives none
  nlohmann::json (*value)(const PrecisionRecipe& row);
  bool boolean = false;  // a JSON boolean; otherwise a string or null, one of the values the rows have
};
const std::vector<RecipeField>& recipe_fields();

// "fp16", "bf16", "fp32", "fp64", or c10's name: a floating format as reports name it.
std::string dtype_name(c10::ScalarType dtype);

// Every row, in the order of the enum (and of --list-modes and the docs).
const std::vector<PrecisionRecipe>& precision_recipes();
const PrecisionRecipe& recipe_of(PrecisionMode mode);
// A row as report.json's `modes` and `--list-modes json` record it, for the scripts that read a mode's
// properties (gpu_judge.py, peer_pytorch.py) instead of copying them.
nlohmann::json recipe_json(const PrecisionRecipe& row);

std::string_view to_string(PrecisionMode mode);
std::optional<PrecisionMode> parse_precision_mode(std::string_view name);
// The mode a config or the command line names; any other name throws util::InputError (without a
// location, which the caller adds) that lists the modes there are.
PrecisionMode precision_mode_named(std::string_view name);
const std::vector<PrecisionMode>& all_precision_modes();
// The modes a config runs when it names none: the rows in the default set.
const std::vector<PrecisionMode>& default_precision_modes();
// Comma-separated names of these modes (by default all of them), for messages and help text.
std::string precision_mode_names(const std::vector<PrecisionMode>& modes = all_precision_modes());

// The modes whose rows satisfy `predicate`, in the table's order: a family's tests take their modes here,
// so a new row joins every test of its family.
template <typename Predicate>
std::vector<PrecisionMode> modes_where(Predicate predicate) {
  std::vector<PrecisionMode> modes;
  for (const auto& row : precision_recipes())
    if (predicate(row)) modes.push_back(row.mode);
  return modes;
}

}  // namespace ampbench::amp
