"""The fp16 training loop of ampbench's Trainer, written in PyTorch-Python: an MLP (Linear, ReLU, Linear)
from the weights, data and batch orders that tests/test_python_parity.cpp saved, SGD, torch.autocast
and torch.amp.GradScaler. Writes the loss-scale trajectory and skipped steps as JSON, for the test to
compare with the C++ run's.

Usage: fp16_training.py IN.pt OUT.json
"""
import json
import sys

import torch
import torch.jit._pickle
import torch.nn.functional as F


def main(in_path, out_path):
    # torch::pickle_save tags a typed C++ dict with restore_type_tag: allow just that.
    with torch.serialization.safe_globals([torch.jit._pickle.restore_type_tag]):
        d = torch.load(in_path)
    lr, momentum, weight_decay, init_scale, growth_factor, backoff_factor, growth_interval, batch = d["hyper"].tolist()
    weights = [d[f"param{i}"] for i in range(4)]
    model = torch.nn.Sequential(
        torch.nn.Linear(weights[0].shape[1], weights[0].shape[0]),
        torch.nn.ReLU(inplace=True),
        torch.nn.Linear(weights[2].shape[1], weights[2].shape[0]),
    )
    with torch.no_grad():
        for parameter, weight in zip(model.parameters(), weights):
            parameter.copy_(weight)
    optimizer = torch.optim.SGD(model.parameters(), lr=lr, momentum=momentum, weight_decay=weight_decay, fused=True)
    scaler = torch.amp.GradScaler(
        "cpu", init_scale=init_scale, growth_factor=growth_factor, backoff_factor=backoff_factor,
        growth_interval=int(growth_interval))
    inputs, labels, batch = d["train_inputs"], d["train_labels"], int(batch)
    step, last_scale, skipped, changes = 0, init_scale, [], []
    for order in d["orders"]:
        optimizer.zero_grad()
        for begin in range(0, len(order) - batch + 1, batch):
            step += 1
            index = order[begin:begin + batch]
            x, y = inputs.index_select(0, index), labels.index_select(0, index)
            with torch.autocast("cpu", dtype=torch.float16):
                loss = F.cross_entropy(model(x.flatten(1)).float(), y)
            scaler.scale(loss).backward()  # one batch per step: the Trainer does not divide by 1
            # unscale_ first, as ampbench's GradScaler::step does: the fused step then gets found_inf only.
            scaler.unscale_(optimizer)
            scaler.step(optimizer)
            scaler.update()
            scale = scaler.get_scale()
            if scale < last_scale:
                skipped.append(step)
            if scale != last_scale:
                changes.append([step, scale])
            last_scale = scale
            optimizer.zero_grad()
    with open(out_path, "w") as out:
        json.dump({"skipped_steps": skipped, "changes": changes}, out)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
