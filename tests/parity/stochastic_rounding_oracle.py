"""Rounds the fp32 values tests/test_stochastic_rounding_parity.cpp saved into bf16 with torchao's stochastic
rounding (torchao.optim.quant_utils._fp32_to_bf16_sr, what its bf16 optimizers use), DRAWS times each, and
saves how many times each value was rounded away from zero, for the C++ test to compare in distribution
with ampbench's.

Usage: stochastic_rounding_oracle.py IN.pt OUT.pt
Exits 77, with a line saying which, when torchao is not installed for this Python.
"""
import sys

SKIP = 77
DRAWS = 20000


def main(in_path, out_path):
    try:
        from torchao.optim.quant_utils import _fp32_to_bf16_sr
    except ImportError as error:
        print(f"skipped: torchao is not installed for {sys.executable} ({error})")
        sys.exit(SKIP)
    import torch
    import torch.jit._pickle

    with torch.serialization.safe_globals([torch.jit._pickle.restore_type_tag]):
        values = torch.load(in_path)["values"]
    torch.manual_seed(0)
    toward_zero = (values.view(torch.int32) & -65536).view(torch.float32)
    away = torch.zeros(values.shape, dtype=torch.int64)
    for _ in range(DRAWS):
        rounded = _fp32_to_bf16_sr(values).float()
        away += (rounded != toward_zero).to(torch.int64)
    torch.save({"away": away, "draws": torch.tensor(DRAWS)}, out_path)


if __name__ == "__main__":
    main(*sys.argv[1:])
