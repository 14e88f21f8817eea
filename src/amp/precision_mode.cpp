#include "amp/precision_mode.h"

#include <algorithm>

#include "util/enum_names.h"
#include "util/input_error.h"

namespace ampbench::amp {
namespace {

using c10::ScalarType;
using optim::WeightRounding;

constexpr ComputeCapability kAmpere{8, 0};
constexpr ComputeCapability kAda{8, 9};

// The table. A row of a family (a float8 recipe, a rounding of pure bf16) is all a new mode of that family
// needs, beside its enum value and a line in the docs. A row sets the fields without a default and those
// where it differs from the default.
const std::vector<PrecisionRecipe>& table() {
  static const std::vector<PrecisionRecipe> rows{
      {.mode = PrecisionMode::fp32,
       .name = "fp32",
       .summary = "the strict baseline: fp32 throughout, TF32 off",
       .autocast = std::nullopt,
       .weights = ScalarType::Float,
       .tf32 = false,
       .needs_capability = std::nullopt,
       .arithmetic = MatrixArithmetic::fp32,
       .in_default_set = true,
       .observed_format = std::nullopt},
      {.mode = PrecisionMode::tf32,
       .name = "tf32",
       .summary = "fp32 with matmuls and convolutions on TF32 tensor cores (CUDA only)",
       .autocast = std::nullopt,
       .weights = ScalarType::Float,
       .tf32 = true,
       .needs_capability = kAmpere,
       .arithmetic = MatrixArithmetic::tf32,
       .in_default_set = true,
       .observed_format = std::nullopt},
      {.mode = PrecisionMode::fp16,
       .name = "fp16",
       .summary = "autocast float16 over forward + loss, fp32 master weights, a dynamic GradScaler",
       .autocast = ScalarType::Half,
       .weights = ScalarType::Float,
       .gradient_guard = GradientGuard::grad_scaler,
       .tf32 = false,
       .needs_capability = std::nullopt,
       .arithmetic = MatrixArithmetic::fp16,
       .in_default_set = true,
       .observed_format = ScalarType::Half},
      {.mode = PrecisionMode::bf16,
       .name = "bf16",
       .summary = "autocast bfloat16 over forward + loss, fp32 master weights, no scaler",
       .autocast = ScalarType::BFloat16,
       .weights = ScalarType::Float,
       .tf32 = true,
       .needs_capability = kAmpere,
       .arithmetic = MatrixArithmetic::bf16,
       .in_default_set = true,
       .observed_format = ScalarType::BFloat16},
      {.mode = PrecisionMode::fp8,
       .name = "fp8",
       .summary =
           "as bf16, each linear layer's products in float8, one scale per tensor (e4m3, e5m2 gradients)",
       .autocast = ScalarType::BFloat16,
       .weights = ScalarType::Float,
       .tf32 = true,
       .linear_recipe = LinearRecipe::tensorwise,
       .needs_capability = kAda,
       .arithmetic = MatrixArithmetic::fp8,
       .also_against = PrecisionMode::bf16,
       .observed_format = ScalarType::BFloat16},
      {.mode = PrecisionMode::fp8_rowwise,
       .name = "fp8-rowwise",
       .summary = "as fp8, all e4m3, one power-of-two scale per row",
       .autocast = ScalarType::BFloat16,
       .weights = ScalarType::Float,
       .tf32 = true,
       .linear_recipe = LinearRecipe::rowwise,
       .needs_capability = kAda,
       .arithmetic = MatrixArithmetic::fp8,
       .also_against = PrecisionMode::bf16,
       .observed_format = ScalarType::BFloat16},
      {.mode = PrecisionMode::bf16_pure,
       .name = "bf16-pure",
       .summary = "bf16 weights, gradients and optimizer state, no autocast, updates rounded to nearest",
       .autocast = std::nullopt,
       .weights = ScalarType::BFloat16,
       .tf32 = true,
       .needs_capability = kAmpere,
       .arithmetic = MatrixArithmetic::bf16,
       .also_against = PrecisionMode::bf16,
       .audited = true,
       .observed_format = ScalarType::BFloat16},
      {.mode = PrecisionMode::bf16_pure_sr,
       .name = "bf16-pure-sr",
       .summary = "as bf16-pure, updates stochastically rounded",
       .autocast = std::nullopt,
       .weights = ScalarType::BFloat16,
       .update_rounding = WeightRounding::stochastic,
       .tf32 = true,
       .needs_capability = kAmpere,
       .arithmetic = MatrixArithmetic::bf16,
       .also_against = PrecisionMode::bf16,
       .audited = true,
       .observed_format = ScalarType::BFloat16},
      {.mode = PrecisionMode::bf16_pure_kahan,
       .name = "bf16-pure-kahan",
       .summary = "as bf16-pure, updates Kahan-compensated",
       .autocast = std::nullopt,
       .weights = ScalarType::BFloat16,
       .update_rounding = WeightRounding::kahan,
       .tf32 = true,
       .needs_capability = kAmpere,
       .arithmetic = MatrixArithmetic::bf16,
       .also_against = PrecisionMode::bf16,
       .audited = true,
       .observed_format = ScalarType::BFloat16},
      {.mode = PrecisionMode::mxfp8,
       .name = "mxfp8",
       .summary = "as bf16, each linear layer's products in MXFP8 (e4m3, an E8M0 scale per 32), emulated "
                  "without the GPU's kernels",
       .autocast = ScalarType::BFloat16,
       .weights = ScalarType::Float,
       .tf32 = true,
       .linear_recipe = LinearRecipe::mxfp8,
       .emulated = true,
       .needs_capability = kAmpere,
       .arithmetic = MatrixArithmetic::fp8,
       .also_against = PrecisionMode::bf16,
       .observed_format = ScalarType::BFloat16},
      {.mode = PrecisionMode::nvfp4,
       .name = "nvfp4",
       .summary = "as bf16, each linear layer's products in NVFP4 (e2m1, an e4m3 scale per 16), emulated "
                  "without the GPU's kernels",
       .autocast = ScalarType::BFloat16,
       .weights = ScalarType::Float,
       .tf32 = true,
       .linear_recipe = LinearRecipe::nvfp4,
       .emulated = true,
       .needs_capability = kAmpere,
       .arithmetic = MatrixArithmetic::fp4,
       .also_against = PrecisionMode::bf16,
       .observed_format = ScalarType::BFloat16},
      {.mode = PrecisionMode::fp8_blockwise,
       .name = "fp8-blockwise",
       .summary =
           "as bf16, each linear layer's products in e4m3 with power-of-two scales per 1 x 128 (weights "
           "128 x 128), emulated without the GPU's kernels",
       .autocast = ScalarType::BFloat16,
       .weights = ScalarType::Float,
       .tf32 = true,
       .linear_recipe = LinearRecipe::blockwise,
       .emulated = true,
       .needs_capability = kAmpere,
       .arithmetic = MatrixArithmetic::fp8,
       .also_against = PrecisionMode::bf16,
       .observed_format = ScalarType::BFloat16},
  };
  return rows;
}

}  // namespace

bool at_least(const ComputeCapability& have, const ComputeCapability& need) {
  return have.major > need.major || (have.major == need.major && have.minor >= need.minor);
}

std::string to_string(const ComputeCapability& capability) {
  return std::to_string(capability.major) + "." + std::to_string(capability.minor);
}

std::string_view to_string(MatrixArithmetic arithmetic) {
  static constexpr util::EnumNames<MatrixArithmetic, 6> kNames{{{MatrixArithmetic::fp32, "fp32"},
                                                                {MatrixArithmetic::tf32, "tf32"},
                                                                {MatrixArithmetic::fp16, "fp16"},
                                                                {MatrixArithmetic::bf16, "bf16"},
                                                                {MatrixArithmetic::fp8, "fp8"},
                                                                {MatrixArithmetic::fp4, "fp4"}}};
  return util::name_of(kNames, arithmetic);
}

std::string_view to_string(GradientGuard guard) {
  return guard == GradientGuard::grad_scaler ? "grad_scaler" : "none";
}

std::string dtype_name(c10::ScalarType dtype) {
  switch (dtype) {
    case ScalarType::Half:
      return "fp16";
    case ScalarType::BFloat16:
      return "bf16";
    case ScalarType::Float:
      return "fp32";
    case ScalarType::Double:
      return "fp64";
    default:
      return c10::toString(dtype);
  }
}

const std::vector<PrecisionRecipe>& precision_recipes() { return table(); }

namespace {

nlohmann::json dtype_or_null(std::optional<ScalarType> dtype) {
  return dtype ? nlohmann::json(dtype_name(*dtype)) : nlohmann::json();
}

template <typename T>
nlohmann::json name_or_null(const std::optional<T>& value) {
  return value ? nlohmann::json(to_string(*value)) : nlohmann::json();
}

}  // namespace

const std::vector<RecipeField>& recipe_fields() {
  using R = PrecisionRecipe;
  using json = nlohmann::json;
  static constexpr util::EnumNames<WeightRounding, 3> kRoundings{{{WeightRounding::nearest, "nearest"},
                                                                  {WeightRounding::stochastic, "stochastic"},
                                                                  {WeightRounding::kahan, "kahan"}}};
  static const std::vector<RecipeField> fields{
      {"name", "", [](const R& r) { return json(r.name); }},
      {"autocast", "what autocast runs forward + loss in; null: no autocast",
       [](const R& r) { return dtype_or_null(r.autocast); }},
      {"weights",
       "the format of the model's floating parameters and buffers, its gradients and the optimizer's state",
       [](const R& r) { return dtype_or_null(r.weights); }},
      {"update_rounding", "how a weight stored in `weights` takes its update",
       [](const R& r) { return json(util::name_of(kRoundings, r.update_rounding)); }},
      {"gradient_guard", "what guards the gradients against the format's range",
       [](const R& r) { return json(to_string(r.gradient_guard)); }},
      {"tf32", "CUDA may run fp32 matmuls and convolutions in TF32", [](const R& r) { return json(r.tf32); },
       true},
      {"linear_recipe",
       "the float8 or float4 recipe of every linear layer's three products; null: autocast's dtype",
       [](const R& r) { return name_or_null(r.linear_recipe); }},
      {"emulated",
       "its products are emulated (quantized, dequantized, multiplied with fp32 accumulation) wherever the "
       "device has no "
       "kernels for the format; summary[].emulated says whether they were in this run",
       [](const R& r) { return json(r.emulated); }, true},
      {"needs_capability", "the CUDA compute capability without which the mode is skipped; null: any GPU",
       [](const R& r) { return name_or_null(r.needs_capability); }},
      {"arithmetic",
       "the arithmetic its matrix products want: the peak TFLOP/s column, and what a CPU must have",
       [](const R& r) { return json(to_string(r.arithmetic)); }},
      {"also_against",
       "the mode its speed-up and static memory are also read against (summary[].speedup_vs_bf16)",
       [](const R& r) { return name_or_null(r.also_against); }},
      {"in_default_set", "run by a config that names no modes",
       [](const R& r) { return json(r.in_default_set); }, true},
      {"audited", "has the lost-update audit (update_audits[])", [](const R& r) { return json(r.audited); },
       true},
      {"observed_format", "the 16-bit format the numerics pass measures it against; null: no numerics pass",
       [](const R& r) { return dtype_or_null(r.observed_format); }},
  };
  return fields;
}

nlohmann::json recipe_json(const PrecisionRecipe& row) {
  nlohmann::json json = nlohmann::json::object();
  for (const auto& field : recipe_fields()) json[std::string(field.name)] = field.value(row);
  return json;
}

const PrecisionRecipe& recipe_of(PrecisionMode mode) {
  // The rows are in the enum's order, which a test holds.
  return table().at(static_cast<size_t>(mode));
}

std::string_view to_string(PrecisionMode mode) { return recipe_of(mode).name; }

const std::vector<PrecisionMode>& all_precision_modes() {
  static const std::vector<PrecisionMode> modes = [] {
    std::vector<PrecisionMode> out;
    for (const auto& row : table()) out.push_back(row.mode);
    return out;
  }();
  return modes;
}

const std::vector<PrecisionMode>& default_precision_modes() {
  static const std::vector<PrecisionMode> modes = [] {
    std::vector<PrecisionMode> out;
    for (const auto& row : table())
      if (row.in_default_set) out.push_back(row.mode);
    return out;
  }();
  return modes;
}

std::optional<PrecisionMode> parse_precision_mode(std::string_view name) {
  const auto& rows = table();
  const auto row = std::find_if(rows.begin(), rows.end(), [&](const auto& r) { return r.name == name; });
  if (row == rows.end()) return std::nullopt;
  return row->mode;
}

PrecisionMode precision_mode_named(std::string_view name) {
  if (auto mode = parse_precision_mode(name)) return *mode;
  throw util::InputError("unknown mode \"" + std::string(name) + "\"; expected one of " +
                         precision_mode_names());
}

std::string precision_mode_names(const std::vector<PrecisionMode>& modes) {
  std::string names;
  for (auto mode : modes) {
    if (!names.empty()) names += ", ";
    names += to_string(mode);
  }
  return names;
}

}  // namespace ampbench::amp
