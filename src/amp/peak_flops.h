#pragma once

#include <optional>
#include <string>

#include "amp/precision_mode.h"

namespace ampbench::amp {

// The GPU's dense (no sparsity) peak TFLOP/s for the arithmetic a mode's row wants (its matrix format): fp16
// and bf16 on tensor cores, tf32 on tensor cores, fp32 on CUDA cores, fp8 modes at the float8 peak (the
// format their linear layers run in; their other matrix work runs in bf16, at half that). From the vendors'
// data sheets; nullopt for a device or format the table does not know (then no MFU is reported, rather than a
// guess).
std::optional<double> dense_peak_tflops(const std::string& gpu_name, PrecisionMode mode);

}  // namespace ampbench::amp
