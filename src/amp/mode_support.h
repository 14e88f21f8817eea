#pragma once

#include <functional>
#include <optional>
#include <string>

#include <c10/core/DeviceType.h>

#include "amp/precision_mode.h"
#include "measure/cpu_features.h"

namespace ampbench::amp {

// What the reader of a report should know about a mode that runs here: the warning's kind, why, and
// what to do about it.
struct ModeCaveat {
  enum class Kind { no_tensor_cores, no_16bit_arithmetic, no_float8_arithmetic, emulated };
  Kind kind = Kind::no_tensor_cores;
  std::string reason;
  std::string advice;
};

// Whether a mode can run on a device, decided before any training.
struct ModeSupport {
  std::optional<std::string> skip_reason;  // set: the mode cannot run here and is reported as skipped
  std::optional<ModeCaveat> caveat;        // set: it runs, but the reader should know this
};

// Why a block-scaled recipe's products do not run on the device's kernels (nullopt: they do);
// block_kernel_probe.h's kernels_refusal on the device, or a test's stand-in.
using KernelRefusal = std::function<std::optional<std::string>(LinearRecipe)>;

// From the mode's row: on CUDA, a GPU below the row's needs_capability skips the mode, and fp16 arithmetic
// has no tensor cores below 7.0; on the CPU, by the arithmetic the row wants: TF32 does not exist there, a
// CPU without 16-bit arithmetic runs fp16 and bf16 through fp32, and every CPU runs float8 products through
// fp32. A block-scaled mode runs on the device's kernels where `kernels` finds no refusal, and is emulated
// otherwise, its caveat saying why (without `kernels`, emulated). `capability` is the GPU's (ignored on the
// CPU), `cpu` the CPU's (ignored on a GPU); where either is unknown, nothing is said about it.
ModeSupport check_mode_support(PrecisionMode mode, c10::DeviceType device_type,
                               std::optional<ComputeCapability> capability,
                               std::optional<measure::Cpu16BitArithmetic> cpu = std::nullopt,
                               const KernelRefusal& kernels = {});

}  // namespace ampbench::amp
