#pragma once

#include <functional>
#include <optional>
#include <string>

#include <torch/torch.h>

#include "amp/block_scaled_kernels.h"
#include "amp/linear_recipe.h"

namespace ampbench::amp {

// Where a block-scaled recipe's products run on the device's own kernels rather than emulated: on a GPU of
// the architecture that has them (Blackwell, compute capability 10.0 or newer, for MXFP8 and NVFP4; Hopper,
// 9.x, for 1 x 128 fp8), when a probe's products through at::_scaled_mm_v2 run and equal the emulation's.

// A product a @ b^T of two kernel operands: kernel_product, or a test's stand-in for it.
using KernelProduct =
    std::function<torch::Tensor(const KernelOperand&, const KernelOperand&, c10::ScalarType)>;

// Why `product` does not compute the recipe's products as the emulation does (nullopt: it does), from the
// layer's two kinds of product on `device` (a weight's tiles against 1-row blocks, and 1-row blocks against
// 1-row blocks), each operand in turn against the identity, so that the product is its dequantized values:
// operands whose blocks differ in magnitude by powers of two, so that a scale read from the wrong block
// shows. LibTorch refused them (its words), or a value is further than 2^-8 of itself (the output's bf16
// rounding) from the emulation's. Nothing is timed; it reads its results to the host.
std::optional<std::string> probe_kernels(LinearRecipe recipe, const c10::Device& device,
                                         const KernelProduct& product);

// Why `device` has no kernels for the recipe: the CPU, or a GPU of another architecture (nullopt: its
// architecture has them).
std::optional<std::string> architecture_refusal(LinearRecipe recipe, const c10::Device& device);

// Why the recipe's products do not run on `device`'s kernels (nullopt: they do): architecture_refusal, or
// the probe's reason with kernel_product. Decided once per recipe and
// device in a process, so that a mode's support and its trials agree.
std::optional<std::string> kernels_refusal(LinearRecipe recipe, const c10::Device& device);

}  // namespace ampbench::amp
