#include "amp/block_kernel_probe.h"

#include <map>
#include <mutex>

#include "amp/block_scaled_linear.h"
#include "amp/precision_mode.h"
#include "measure/gpu_info.h"
#include "util/text_table.h"

namespace ampbench::amp {
namespace {

constexpr int64_t kProbeRows = 256;
constexpr int64_t kProbeK = 512;
constexpr double kOutputRounding = 1.0 / 256;  // 2^-8: one bf16 unit in the last place

// Normal values whose magnitudes step by powers of two from row to row, from 16 columns to the next and from
// 128 to the next, so that neighbouring blocks and tiles of every format have different scales.
torch::Tensor spread_operand(int64_t rows, uint64_t seed, const c10::Device& device) {
  auto generator = at::make_generator<at::CPUGeneratorImpl>(seed);
  const auto normal = torch::randn({rows, kProbeK}, generator, torch::TensorOptions(torch::kFloat32));
  const auto row = torch::arange(rows);
  const auto column = torch::arange(kProbeK);
  const auto steps =
      (row.remainder(5) + row.floor_divide(128).remainder(2) * 3).unsqueeze(1) +
      (column.floor_divide(16).remainder(7) + column.floor_divide(128).remainder(3)).unsqueeze(0);
  return (normal * torch::exp2((steps - 8).to(torch::kFloat32))).to(device, torch::kBFloat16);
}

// How far `product` is from the emulation on one product, as a multiple of the bound: `spread` (the operand
// whose scales are read) against the identity, on the `spread_first` side, in the two operands' roles. The
// identity picks each element out, so the product is that operand's dequantized values, exact (NVFP4's
// per-tensor scales multiply in at the end, within the output's rounding): a scale read from the wrong block
// is off by a power of two.
double departure(LinearRecipe recipe, LinearOperand a_role, LinearOperand b_role, bool spread_first,
                 const c10::Device& device, const KernelProduct& product) {
  BlockRecipeOptions options;
  options.nvfp4_hadamard = false;  // the kernel takes transformed operands as any: the layouts are the point
  const auto identity = torch::eye(kProbeK, torch::TensorOptions(device).dtype(torch::kBFloat16));
  const auto spread = spread_operand(spread_first ? kProbeRows : kProbeK, spread_first ? 1 : 2, device);
  const auto a = emulate_operand(spread_first ? spread : identity, a_role, recipe, options, {});
  const auto b = emulate_operand(spread_first ? identity : spread, b_role, recipe, options, {});
  const auto ours = product(kernel_operand(a, recipe, tile_rows(a_role, recipe, options)),
                            kernel_operand(b, recipe, tile_rows(b_role, recipe, options)), torch::kBFloat16);
  const auto picked = spread_first ? a.values : b.values.t();
  const auto expected = picked.to(torch::kBFloat16).to(torch::kFloat32);
  const auto apart = (ours.to(torch::kFloat32) - expected).abs();
  const auto ratio =
      torch::where(apart == 0, torch::zeros_like(apart), apart / (expected.abs() * kOutputRounding));
  return torch::nan_to_num(ratio, /*nan=*/INFINITY).max().item<double>();
}

}  // namespace

std::optional<std::string> architecture_refusal(LinearRecipe recipe, const c10::Device& device) {
  if (!device.is_cuda()) return "the CPU has no block-scaled kernels";
  const auto gpu = measure::gpu_details(device.has_index() ? device.index() : c10::DeviceIndex(0));
  if (!gpu) return "the GPU's compute capability is unknown";
  const ComputeCapability have{gpu->capability_major, gpu->capability_minor};
  if (recipe == LinearRecipe::blockwise && have.major != 9)
    return "1 x 128 fp8 kernels are Hopper's (compute capability 9.x); this GPU has " + to_string(have);
  if (recipe != LinearRecipe::blockwise && have.major < 10) {
    return std::string(to_string(recipe)) +
           " kernels need Blackwell (compute capability 10.0 or newer); this GPU has " + to_string(have);
  }
  return std::nullopt;
}

std::optional<std::string> probe_kernels(LinearRecipe recipe, const c10::Device& device,
                                         const KernelProduct& product) {
  using Role = LinearOperand;
  double worst = 0;
  try {
    // A weight's tiles against 1-row blocks (the forward and input-gradient products) and 1-row blocks
    // against 1-row blocks (the weight gradient's), each operand's scales read once.
    for (auto [a_role, b_role] :
         {std::pair{Role::input, Role::weight}, std::pair{Role::input, Role::input}}) {
      for (bool spread_first : {true, false})
        worst = std::max(worst, departure(recipe, a_role, b_role, spread_first, device, product));
    }
  } catch (const std::exception& refused) {
    std::string words = refused.what();
    words = words.substr(0, words.find('\n'));
    return "LibTorch's at::_scaled_mm_v2 refused a probe product: " + words;
  }
  if (worst <= 1) return std::nullopt;
  return "a probe product on the kernel is further from the emulation's than the rounding allows (" +
         util::format_number("%.3g", worst) + " times 2^-8 of the value)";
}

std::optional<std::string> kernels_refusal(LinearRecipe recipe, const c10::Device& device) {
  static std::mutex mutex;
  static std::map<std::pair<LinearRecipe, std::string>, std::optional<std::string>> decided;
  std::lock_guard<std::mutex> lock(mutex);
  const auto key = std::make_pair(recipe, device.str());
  if (auto found = decided.find(key); found != decided.end()) return found->second;
  auto refusal = architecture_refusal(recipe, device);
  if (!refusal) refusal = probe_kernels(recipe, device, kernel_product);
  return decided[key] = refusal;
}

}  // namespace ampbench::amp
