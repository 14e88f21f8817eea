#include "amp/precision_mode.h"

#include "util/input_error.h"

namespace ampbench::amp {

std::string_view to_string(PrecisionMode mode) {
  switch (mode) {
    case PrecisionMode::fp32:
      return "fp32";
    case PrecisionMode::tf32:
      return "tf32";
    case PrecisionMode::fp16:
      return "fp16";
    case PrecisionMode::bf16:
      return "bf16";
    case PrecisionMode::fp8:
      return "fp8";
    case PrecisionMode::fp8_rowwise:
      return "fp8-rowwise";
    case PrecisionMode::bf16_pure:
      return "bf16-pure";
    case PrecisionMode::bf16_pure_sr:
      return "bf16-pure-sr";
    case PrecisionMode::bf16_pure_kahan:
      return "bf16-pure-kahan";
  }
  return "unknown";
}

const std::vector<PrecisionMode>& all_precision_modes() {
  static const std::vector<PrecisionMode> modes{
      PrecisionMode::fp32,      PrecisionMode::tf32,         PrecisionMode::fp16,
      PrecisionMode::bf16,      PrecisionMode::fp8,          PrecisionMode::fp8_rowwise,
      PrecisionMode::bf16_pure, PrecisionMode::bf16_pure_sr, PrecisionMode::bf16_pure_kahan};
  return modes;
}

const std::vector<PrecisionMode>& default_precision_modes() {
  static const std::vector<PrecisionMode> modes{PrecisionMode::fp32, PrecisionMode::tf32, PrecisionMode::fp16,
                                                PrecisionMode::bf16};
  return modes;
}

std::optional<PrecisionMode> parse_precision_mode(std::string_view name) {
  for (auto mode : all_precision_modes()) {
    if (to_string(mode) == name) return mode;
  }
  return std::nullopt;
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

std::optional<c10::ScalarType> autocast_dtype(PrecisionMode mode) {
  switch (mode) {
    case PrecisionMode::fp16:
      return c10::ScalarType::Half;
    case PrecisionMode::bf16:
    case PrecisionMode::fp8:
    case PrecisionMode::fp8_rowwise:
      return c10::ScalarType::BFloat16;
    case PrecisionMode::fp32:
    case PrecisionMode::tf32:
    case PrecisionMode::bf16_pure:
    case PrecisionMode::bf16_pure_sr:
    case PrecisionMode::bf16_pure_kahan:
      return std::nullopt;
  }
  return std::nullopt;
}

std::optional<c10::ScalarType> sixteen_bit_format(PrecisionMode mode) {
  if (is_pure_bf16(mode)) return c10::ScalarType::BFloat16;
  if (mode == PrecisionMode::fp16 || mode == PrecisionMode::bf16) return autocast_dtype(mode);
  return std::nullopt;
}

bool is_pure_bf16(PrecisionMode mode) {
  return mode == PrecisionMode::bf16_pure || mode == PrecisionMode::bf16_pure_sr ||
         mode == PrecisionMode::bf16_pure_kahan;
}

c10::ScalarType weight_dtype(PrecisionMode mode) {
  return is_pure_bf16(mode) ? c10::ScalarType::BFloat16 : c10::ScalarType::Float;
}

optim::WeightRounding weight_rounding(PrecisionMode mode) {
  if (mode == PrecisionMode::bf16_pure_sr) return optim::WeightRounding::stochastic;
  if (mode == PrecisionMode::bf16_pure_kahan) return optim::WeightRounding::kahan;
  return optim::WeightRounding::nearest;
}

bool needs_grad_scaler(PrecisionMode mode) { return mode == PrecisionMode::fp16; }

bool allows_tf32(PrecisionMode mode) { return mode != PrecisionMode::fp32 && mode != PrecisionMode::fp16; }

}  // namespace ampbench::amp
