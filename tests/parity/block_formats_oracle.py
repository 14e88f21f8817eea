"""The block-scaled formats as their references compute them, for tests/test_block_formats_parity.cpp.

Usage: block_formats_oracle.py IN.pt OUT.pt

IN.pt holds bf16 matrices (x, w, go, special); OUT.pt gets, per matrix:
- torchao 0.18's MXFP8 (to_mx, both scale roundings): the E8M0 scales' biased exponents and the values
  dequantized as MXTensor does (FLOOR's blocks at E8M0's least scale encoded by the scale they decode by);
- NVFP4: torchao's per-tensor scale amax / (448 x 6), the block scales and elements as the Blackwell kernels
  compute them, the values dequantized with and without the per-tensor scale, and torchao's own block scales
  (nvfp4_quantize) beside them;
- blockwise fp8 by TransformerEngine's documented rule (Float8BlockScaling: scale = 448 / amax rounded down
  to a power of two, 1 for a tile whose amax is 0 or inf; the amax taken as its kernels take it, with fmaxf,
  which skips a NaN, so that only a tile of NaN alone has a NaN amax and scale 1), written here from its
  definition with frexp, independent of ampbench's bit masking: 1 x 128 and 128 x 128 tiles;
- torchao's random Hadamard matrix (get_rht_matrix) on TransformerEngine's fixed signs, and x^T through it;
- torchao's emulated MXFP8 linear (_to_mxfp8_then_scaled_mm, both roundings) forward and backward on x, w,
  go;
- the operands as torchao hands them to torch._scaled_mm for x and w: MXFP8's e4m3 bytes (RCEIL) and NVFP4's
  e2m1 codes above packed by torchao's pack_uint4, each with its block scales' bytes through to_blocked (the
  swizzle cuBLAS reads), and
  to_blocked of the float matrix scale_matrix (which is not quantized).
- NVFP4's default recipe by TransformerEngine's own reference quantizer (NVFP4QuantizerRef, pure PyTorch, as
  its nvfp4_ref_rht_2d_factory configures it: the Hadamard transform on the weight gradient's operands,
  16 x 16 tiles for the weight, rounding to nearest, which is all it implements) on x, w and go: each of the
  six operands' e2m1 elements times their block scales, their block scales and the tensor's amax, and the
  three products from its operands, the two amaxes applied as its GEMM applies them (te/...). Left out when
  TransformerEngine is not installed.
Exits 77 (skipped) when torchao is missing.
"""
import importlib.util
import pathlib
import sys
import types

import numpy as np
import torch

try:
    from torchao.prototype.mx_formats.config import ScaleCalculationMode
    from torchao.prototype.mx_formats.kernels import f4_unpacked_to_f32, f32_to_f4_unpacked, pack_uint4
    from torchao.prototype.mx_formats.mx_tensor import get_fp_scale, to_mx
    from torchao.prototype.mx_formats.utils import to_blocked
    from torchao.prototype.mx_formats.nvfp4_tensor import nvfp4_quantize, per_tensor_amax_to_scale
    from torchao.prototype.moe_training.mxfp8_linear import _to_mxfp8_then_scaled_mm
    from torchao.prototype.moe_training.nvfp4_training.hadamard_utils import get_rht_matrix
    from torchao.quantization.quantize_.common.kernel_preference import KernelPreference
except ImportError as error:
    print(f"torchao's block-scaled formats are not installed: {error}")
    sys.exit(77)

TE_SIGNS = (1, 1, 1, -1, 1, -1, -1, -1, -1, -1, -1, 1, -1, 1, -1, -1)


def mxfp8(x, mode):
    scale, data = to_mx(x.contiguous(), torch.float8_e4m3fn, 32, mode)
    biased = scale.view(torch.uint8).to(torch.int32).reshape(-1)
    codes = data.to(torch.float32).reshape(-1, 32)
    if mode == ScaleCalculationMode.FLOOR:
        # torchao divides a block at E8M0's least scale, 2^-127, by fp32's least normal, 2^-126, and
        # decodes it by 2^-127: such a block is encoded here by the scale it is decoded by, as hardware does.
        least = biased == 0
        blocks = x.float().reshape(-1, 32)[least]
        codes[least] = torch.clamp(blocks * 2.0**127, -448, 448).to(torch.float8_e4m3fn).to(torch.float32)
    values = codes * get_fp_scale(scale).reshape(-1, 1)
    return biased, values.reshape(x.shape)


def nvfp4_codes(x):
    """torchao's per-tensor scale; the block scales and elements as the Blackwell kernels compute them
    (TransformerEngine's quantize: the block's amax times (2688 / amax x 1/6) in fp32, rounded to e4m3, which
    keeps its subnormals where torchao's nvfp4_quantize raises a scale to 2^-6; the elements times
    1 / (e4m3 scale x (1 / (2688 / amax))) in fp32, clamped at fp32's largest), rounded onto e2m1 by
    torchao's f32_to_f4_unpacked (e2m1 codes, one a byte)."""
    amax = x.float().abs().max()
    per_tensor = per_tensor_amax_to_scale(amax)
    largest = torch.finfo(torch.float32).max
    encode = torch.clamp(torch.tensor(448.0 * 6.0) / amax, max=largest)
    encode = torch.where(encode == 0, torch.ones_like(encode), encode)  # an inf amax: the kernels take 1
    block_amax = x.float().reshape(-1, 16).abs().amax(-1)
    sixth = torch.reciprocal(torch.tensor(6.0))
    scales = torch.clamp(torch.clamp(block_amax * (encode * sixth), max=largest), max=448.0)
    scales = scales.to(torch.float8_e4m3fn).reshape(x.shape[0], -1)
    reciprocal = torch.clamp(1.0 / (scales.to(torch.float32).reshape(-1, 1) * (1.0 / encode)), max=largest)
    scaled = torch.clamp(x.float().reshape(-1, 16) * reciprocal, -6.0, 6.0)
    return scales, per_tensor, f32_to_f4_unpacked(scaled.reshape(x.shape))


def nvfp4(x):
    """The block scales times the per-tensor scale, the values, the values without the per-tensor scale, the
    per-tensor scale, and torchao's block scales (nvfp4_quantize's) times the per-tensor scale."""
    scales, per_tensor, codes = nvfp4_codes(x)
    scale = scales.to(torch.float32).reshape(-1, 1)
    elements = f4_unpacked_to_f32(codes).reshape(-1, 16)
    decode = per_tensor * scale
    values, block_values = (elements * decode).reshape(x.shape), (elements * scale).reshape(x.shape)
    torchao_scales, _ = nvfp4_quantize(x.contiguous(), 16, per_tensor)
    torchao_decode = per_tensor * torchao_scales.to(torch.float32).reshape(-1)
    return decode.reshape(-1), values, block_values, per_tensor, torchao_decode


def kernel_operands(x):
    """What torchao's MXFP8 and NVFP4 matmuls pass to torch._scaled_mm for x, as bytes."""
    rows = x.shape[0]
    scale, data = to_mx(x.contiguous(), torch.float8_e4m3fn, 32, ScaleCalculationMode.RCEIL)
    mx = {"data": data.view(torch.uint8), "scales": to_blocked(scale.view(rows, -1)).view(torch.uint8)}
    scales, _, codes = nvfp4_codes(x)
    nv = {"data": pack_uint4(codes).view(torch.uint8),
          "scales": to_blocked(scales.view(rows, -1)).view(torch.uint8)}
    return mx, nv


def blockwise(x, tile_rows):
    """TransformerEngine's rule, from its definition: the largest power of two at or below 448 / amax."""
    a = x.float().numpy()
    rows, cols = a.shape
    values = np.zeros_like(a)
    inverses = []
    for r in range(0, rows, tile_rows):
        for c in range(0, cols, 128):
            tile = a[r:r + tile_rows, c:c + 128]
            amax = np.float32(np.fmax.reduce(np.abs(tile), axis=None))  # fmaxf's: a NaN is skipped
            if amax == 0 or not np.isfinite(amax):
                scale = np.float32(1)
            else:
                ratio = np.float32(448) / amax  # float32 division, correctly rounded
                if np.isinf(ratio):
                    ratio = np.finfo(np.float32).max
                mantissa, exponent = np.frexp(ratio)  # ratio = mantissa x 2^exponent, mantissa in [0.5, 1)
                scale = np.float32(np.ldexp(np.float32(1), int(exponent) - 1))
            q = torch.from_numpy(np.clip(tile * scale, -448, 448).astype(np.float32)).to(torch.float8_e4m3fn)
            values[r:r + tile_rows, c:c + 128] = q.float().numpy() / scale
            inverses.append(np.float32(1) / scale)
    return torch.tensor(np.array(inverses, dtype=np.float32)), torch.from_numpy(values)


def transformer_engine_reference():
    """TransformerEngine's reference_nvfp4 module, or None when it is not installed. It is pure PyTorch, but its
    package imports TransformerEngine's CUDA extension: the two modules it imports from the package for its
    class hierarchy and type hints are stood in for, and only its quantizer's _quantize is used."""
    spec = importlib.util.find_spec("transformer_engine")
    if spec is None:
        return None
    recipes = pathlib.Path(spec.submodule_search_locations[0]) / "pytorch" / "custom_recipes"

    class Quantizer:
        def __init__(self, rowwise=True, columnwise=True):
            self.rowwise_usage, self.columnwise_usage = rowwise, columnwise

    stand_ins = {
        "transformer_engine": {},
        "transformer_engine.pytorch": {},
        "transformer_engine.pytorch.custom_recipes": {},
        "transformer_engine.pytorch.quantized_tensor": {"Quantizer": Quantizer,
                                                        "QuantizedTensorStorage": object},
        "transformer_engine.pytorch.custom_recipes.gemm": {
            "MMParams": object, "GEMMType": types.SimpleNamespace(FPROP=0)},
    }
    for name, attributes in stand_ins.items():
        module = types.ModuleType(name)
        module.__path__ = []
        module.__dict__.update(attributes)
        sys.modules[name] = module
    loaded = None
    for name in ("reference_utils", "reference_nvfp4"):
        full = f"transformer_engine.pytorch.custom_recipes.{name}"
        module_spec = importlib.util.spec_from_file_location(full, recipes / f"{name}.py")
        loaded = importlib.util.module_from_spec(module_spec)
        sys.modules[full] = loaded
        setattr(sys.modules["transformer_engine.pytorch.custom_recipes"], name, loaded)
        module_spec.loader.exec_module(loaded)
    return loaded


def te_default_nvfp4(reference, x, w, go):
    """The default recipe's operands and products by TransformerEngine's reference (see the docstring)."""
    fp4 = sys.modules["transformer_engine.pytorch.custom_recipes.reference_utils"].Fp4Formats.E2M1
    activations = reference.NVFP4QuantizerRef(dtype=fp4, quant_tile_shape=(1, 16), with_rht=True)
    weights = reference.NVFP4QuantizerRef(dtype=fp4, quant_tile_shape=(16, 16), with_rht=False)
    out, operands = {}, {}
    for name, tensor, quantizer, roles in (("x", x, activations, ("input", "input_transposed")),
                                           ("w", w, weights, ("weight", "weight_transposed")),
                                           ("go", go, activations, ("grad_output", "grad_output_transposed"))):
        q, s, q_t, s_t, amax, amax_t = quantizer._quantize(tensor)
        for role, codes, scales, role_amax in ((roles[0], q, s, amax), (roles[1], q_t, s_t, amax_t)):
            block_scales = scales.to(torch.float32).repeat_interleave(16, dim=1)
            elements = reference.cast_from_fp4x2(codes, torch.float32)
            out[f"te/{role}/block_values"] = elements * block_scales
            out[f"te/{role}/block_scales"] = block_scales
            out[f"te/{role}/amax"] = role_amax.reshape(())
            operands[role] = (out[f"te/{role}/block_values"], role_amax.reshape(()))

    def product(a, b):
        (a_values, a_amax), (b_values, b_amax) = operands[a], operands[b]
        alpha = a_amax * b_amax / (6.0 * 6.0 * 448.0 * 448.0)
        return (a_values @ b_values.t() * alpha).to(torch.bfloat16)

    out["te/output"] = product("input", "weight")
    out["te/grad_input"] = product("grad_output", "weight_transposed")
    out["te/grad_weight"] = product("grad_output_transposed", "input_transposed")
    return out


def main(source, target):
    import torch.jit._pickle

    # torch::pickle_save tags a typed C++ dict with restore_type_tag: allow just that.
    with torch.serialization.safe_globals([torch.jit._pickle.restore_type_tag]):
        inputs = torch.load(source)
    out = {"swizzle": to_blocked(inputs.pop("scale_matrix"))}
    for name in ("x", "w"):
        mx, nv = kernel_operands(inputs[name])
        for part in ("data", "scales"):
            out[f"{name}/kernel/mxfp8/{part}"], out[f"{name}/kernel/nvfp4/{part}"] = mx[part], nv[part]
    for name, x in inputs.items():
        for mode in (ScaleCalculationMode.RCEIL, ScaleCalculationMode.FLOOR):
            tag = mode.name.lower()
            out[f"{name}/mxfp8/{tag}/scales"], out[f"{name}/mxfp8/{tag}/values"] = mxfp8(x, mode)
        if not bool(x.float().abs().max() == 0) and x.shape[-1] % 16 == 0:  # a NaN or inf amax included
            keys = ("scales", "values", "block_values", "tensor_scale", "torchao_scales")
            for key, tensor in zip(keys, nvfp4(x)):
                out[f"{name}/nvfp4/{key}"] = tensor
        for tile_rows in (1, 128):
            if x.shape[0] % tile_rows == 0 and x.shape[1] % 128 == 0:
                out[f"{name}/blockwise/{tile_rows}/scales"], out[f"{name}/blockwise/{tile_rows}/values"] = (
                    blockwise(x, tile_rows))
    rht = get_rht_matrix(TE_SIGNS, "cpu", torch.bfloat16, 16)
    out["rht/matrix"] = rht
    xt = inputs["x"].t().contiguous()
    out["rht/x_t"] = (xt.reshape(-1, 16).float() @ rht.float()).to(torch.bfloat16).reshape(xt.shape)
    for mode in (ScaleCalculationMode.RCEIL, ScaleCalculationMode.FLOOR):
        x = inputs["x"].clone().requires_grad_()
        w = inputs["w"].clone().requires_grad_()
        y = _to_mxfp8_then_scaled_mm(x, w, KernelPreference.EMULATED, mode)
        y.backward(inputs["go"])
        key = f"linear/{mode.name.lower()}"
        out[f"{key}/output"], out[f"{key}/grad_input"], out[f"{key}/grad_weight"] = y.detach(), x.grad, w.grad
    reference = transformer_engine_reference()
    if reference is not None:
        out.update(te_default_nvfp4(reference, inputs["x"], inputs["w"], inputs["go"]))
    torch.save(out, target)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
