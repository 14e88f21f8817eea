#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <c10/core/ScalarType.h>

#include "optim/weight_rounding.h"

namespace ampbench::amp {

// The precision modes ampbench compares. In the mixed modes weights stay fp32 (master weights); a mode
// only decides what autocast runs forward + loss in, whether a GradScaler guards the fp16 gradients, and
// whether CUDA may run fp32 matmuls and convolutions in TF32. fp32 is the strict baseline: TF32 off. fp8
// and fp8-rowwise are bf16 with every linear layer's matrix products in float8 (amp/float8_linear.h).
// The pure bf16 modes are not mixed: the model's parameters and buffers, its gradients and the optimizer's
// state are bf16, without autocast; they differ in how a bf16 weight takes its update
// (optim::WeightRounding).
enum class PrecisionMode {
  fp32,
  tf32,
  fp16,
  bf16,
  fp8,
  fp8_rowwise,
  bf16_pure,
  bf16_pure_sr,
  bf16_pure_kahan
};

std::string_view to_string(PrecisionMode mode);
std::optional<PrecisionMode> parse_precision_mode(std::string_view name);
// The mode a config or the command line names; any other name throws util::InputError (without a
// location, which the caller adds) that lists the modes there are.
PrecisionMode precision_mode_named(std::string_view name);
const std::vector<PrecisionMode>& all_precision_modes();
// The modes a config runs when it names none: the four of automatic mixed precision. float8 changes the
// model's linear layers, not only autocast, so a config asks for it by name.
const std::vector<PrecisionMode>& default_precision_modes();
// Comma-separated names of these modes (by default all of them), for messages and help text.
std::string precision_mode_names(const std::vector<PrecisionMode>& modes = all_precision_modes());

// The autocast dtype for forward + loss, or nullopt for plain fp32.
std::optional<c10::ScalarType> autocast_dtype(PrecisionMode mode);
// fp16's narrow exponent range needs loss scaling; bf16 has fp32's range and does not.
bool needs_grad_scaler(PrecisionMode mode);
// The pure bf16 modes: weights, gradients and optimizer state in bf16.
bool is_pure_bf16(PrecisionMode mode);
// The 16-bit format a mode computes in: fp16 or bf16 in the mixed and pure 16-bit modes; empty in fp32, tf32
// and the fp8 modes (whose float8 ranges are their layers' own).
std::optional<c10::ScalarType> sixteen_bit_format(PrecisionMode mode);
// The dtype the model's floating parameters and buffers train in: bf16 in the pure modes, else fp32.
c10::ScalarType weight_dtype(PrecisionMode mode);
// How a pure bf16 mode rounds weight updates; nearest for every other mode (whose fp32 weights round
// as fp32 arithmetic does).
optim::WeightRounding weight_rounding(PrecisionMode mode);
// Whether CUDA's fp32 matmuls and convolutions may use TF32 tensor cores: tf32, and bf16 and fp8 (whose ops
// that autocast leaves in fp32 get TF32 as in PyTorch's usual bf16 recipe). No effect on the CPU.
bool allows_tf32(PrecisionMode mode);

}  // namespace ampbench::amp
