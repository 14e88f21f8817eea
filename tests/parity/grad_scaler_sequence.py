"""Drives torch.amp.GradScaler through a long sequence of gradients with planted inf and NaN values and
saves, for ampbench's C++ GradScaler to replay (tests/test_python_parity.cpp): the gradients, the
unscaled gradients, the scale after every step, the skipped steps and the final parameters.

Usage: grad_scaler_sequence.py OUT.pt
"""
import sys

import torch

STEPS = 1200
NUMELS = [35, 5, 24]  # three parameters of different sizes
OPTIONS = dict(init_scale=2.0**16, growth_factor=2.0, backoff_factor=0.5, growth_interval=10)
LR, MOMENTUM, WEIGHT_DECAY = 0.01, 0.9, 1e-4


def gradients(generator):
    """One step's true gradients: magnitudes from 1e-6 to 1e5, and now and then a planted fault."""
    grads = []
    for numel in NUMELS:
        exponent = torch.randint(-6, 6, (1,), generator=generator).item()
        grads.append(torch.randn(numel, generator=generator) * 10.0**exponent)
    roll = torch.rand(1, generator=generator).item()
    which = torch.randint(0, len(NUMELS), (1,), generator=generator).item()
    where = torch.randint(0, NUMELS[which], (1,), generator=generator).item()
    if roll < 0.015:
        grads[which][where] = float("inf")
    elif roll < 0.03:
        grads[which][where] = float("nan")
    elif roll < 0.04:
        grads[which][where] = -float("inf")
    elif roll < 0.10:
        grads[which][where] = 1e35  # finite: overflows fp32 only while the scale is above ~3400
    return grads


def main(out_path):
    generator = torch.Generator().manual_seed(2026)
    params = [torch.randn(n, generator=generator).requires_grad_() for n in NUMELS]
    initial = torch.cat([p.detach().clone() for p in params])
    # The fused SGD that ampbench's optimizer wraps; GradScaler hands it found_inf.
    optimizer = torch.optim.SGD(params, lr=LR, momentum=MOMENTUM, weight_decay=WEIGHT_DECAY, fused=True)
    scaler = torch.amp.GradScaler("cpu", **OPTIONS)
    inputs, unscaled, scales, skipped = [], [], [], []
    for _ in range(STEPS):
        grads = gradients(generator)
        inputs.append(torch.cat(grads))
        optimizer.zero_grad()
        loss = sum((p * g).sum() for p, g in zip(params, grads))
        scaler.scale(loss).backward()
        scaler.unscale_(optimizer)
        unscaled.append(torch.cat([p.grad.detach().clone() for p in params]))
        before = scaler.get_scale()
        scaler.step(optimizer)
        scaler.update()
        scales.append(scaler.get_scale())
        skipped.append(scales[-1] < before)  # a skipped step always backs off
    if not any(skipped) or all(skipped):
        sys.exit("the sequence must both skip and take steps")
    torch.save(
        {
            "numels": torch.tensor(NUMELS),
            "options": torch.tensor(
                [OPTIONS["init_scale"], OPTIONS["growth_factor"], OPTIONS["backoff_factor"],
                 OPTIONS["growth_interval"], LR, MOMENTUM, WEIGHT_DECAY],
                dtype=torch.float64,
            ),
            "initial_params": initial,
            "inputs": torch.stack(inputs),
            "unscaled": torch.stack(unscaled),
            "scales": torch.tensor(scales, dtype=torch.float32),
            "skipped": torch.tensor(skipped),
            "final_params": torch.cat([p.detach() for p in params]),
        },
        out_path,
    )


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
