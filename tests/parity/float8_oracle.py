"""Runs torchao's Float8Linear on the inputs tests/test_float8_parity.cpp saved: the input (bf16, as
autocast hands it to a linear layer), the fp32 weight and the output's gradient. For each recipe
(tensorwise, rowwise) it runs forward and backward and saves the output and both gradients for the C++
test to compare with ampbench's float8 linear layer.

Usage: float8_oracle.py IN.pt OUT.pt
Exits 77, with a line saying which, when torchao is not installed for this Python.
"""
import sys

SKIP = 77


def main(in_path, out_path):
    try:
        from torchao.float8 import Float8LinearConfig
        from torchao.float8.float8_linear import Float8Linear
    except ImportError as error:
        print(f"skipped: torchao is not installed for {sys.executable} ({error})")
        sys.exit(SKIP)
    import torch
    import torch.jit._pickle

    # torch::pickle_save tags a typed C++ dict with restore_type_tag: allow just that.
    with torch.serialization.safe_globals([torch.jit._pickle.restore_type_tag]):
        saved = torch.load(in_path)
    out = {}
    for recipe in ("tensorwise", "rowwise"):
        weight = saved["weight"]
        linear = torch.nn.Linear(weight.size(1), weight.size(0), bias=False)
        with torch.no_grad():
            linear.weight.copy_(weight)
        layer = Float8Linear.from_float(linear, config=Float8LinearConfig.from_recipe_name(recipe))
        x = saved["input"].clone().requires_grad_()
        y = layer(x)
        y.backward(saved["grad_output"])
        out[f"{recipe}/output"] = y.detach()
        out[f"{recipe}/grad_input"] = x.grad
        out[f"{recipe}/grad_weight"] = layer.weight.grad
    torch.save(out, out_path)


if __name__ == "__main__":
    main(*sys.argv[1:])
