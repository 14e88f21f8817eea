"""The fp16 gradient underflow of ampbench's --numerics pass, counted in PyTorch-Python: the config's fp16
training loop as scripts/peer_pytorch.py writes it (same data, initial weights and batch order; autocast,
torch.amp.GradScaler, fused SGD), and at each optimizer step that ampbench's report measured, every fp16
tensor that backward produced, caught by a post hook on each autograd node of the step's graph (its
gradients with respect to its inputs, after the engine reduced any broadcast; a gradient passed through or
viewed from the node's own incoming gradient is that tensor again, counted once): its elements, the nonzero
ones, those subnormal at the loss scale, and, divided by the scale and rounded to fp16, those that flush to
zero or turn subnormal. Writes the counts summed over the steps as JSON.

Usage: numerics_oracle.py CONFIG REPORT.json AMPBENCH OUT.json
"""
import argparse
import json
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))
import peer_pytorch as peer  # noqa: E402

SMALLEST_NORMAL = 2.0 ** -14  # fp16's


def counts(gradient, scale):
    magnitude = gradient.float().abs()
    nonzero = magnitude != 0
    unscaled = (gradient.float() / scale).half()
    return {"elements": gradient.numel(), "nonzero": int(nonzero.sum()),
            "subnormal": int((nonzero & (magnitude < SMALLEST_NORMAL)).sum()),
            "flushed_unscaled": int((nonzero & (unscaled == 0)).sum()),
            "subnormal_unscaled": int(((unscaled != 0) & (unscaled.float().abs() < SMALLEST_NORMAL)).sum())}


def hook_graph(root, scale, found):
    """Counts every fp16 gradient each node of root's graph produces, into found."""
    def count(grad_inputs, grad_outputs):
        incoming = {g.untyped_storage().data_ptr() for g in grad_outputs if g is not None}
        for gradient in grad_inputs:
            if gradient is None or gradient.dtype != torch.float16 or gradient.numel() == 0:
                continue
            if gradient.untyped_storage().data_ptr() in incoming:
                continue
            for key, value in counts(gradient, scale).items():
                found[key] = found.get(key, 0) + value

    seen, stack = set(), [root]
    while stack:
        node = stack.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        node.register_hook(count)
        stack.extend(next_node for next_node, _ in node.next_functions)


def main(config, report, ampbench, out):
    cfg = peer.resolved_config(argparse.Namespace(config=config, ampbench=ampbench), [])
    measured = next(r for r in json.loads(Path(report).read_text())["numerics"] if r["mode"] == "fp16")
    wanted = set(measured["steps"])
    (x_train, y_train, _, _), classes = peer.make_data(cfg["data"])
    torch.manual_seed(cfg["seed"])
    model = peer.build_model(cfg["model"], list(x_train.shape[1:]), classes)
    train, o, s = cfg["train"], cfg["train"]["optimizer"], cfg["precision"]["grad_scaler"]
    assert o["type"] == "sgd" and train["accumulation_steps"] == 1 and "clip_grad_norm" not in train
    optimizer = torch.optim.SGD(model.parameters(), lr=o["lr"], momentum=o["momentum"],
                                weight_decay=o["weight_decay"], fused=True)
    scaler = torch.amp.GradScaler("cpu", init_scale=s["init_scale"], growth_factor=s["growth_factor"],
                                  backoff_factor=s["backoff_factor"], growth_interval=s["growth_interval"])
    batch, steps, update, found = train["batch_size"], x_train.size(0) // train["batch_size"], 0, {}
    model.train()
    for epoch in range(1, train["epochs"] + 1):
        order = peer.epoch_order(cfg["seed"], epoch, x_train.size(0))
        optimizer.zero_grad()
        for i in range(steps):
            index = order[i * batch:(i + 1) * batch]
            with torch.autocast("cpu", dtype=torch.float16):
                loss = peer.loss_of(model(x_train.index_select(0, index)), y_train.index_select(0, index))
            scaled = scaler.scale(loss)
            update += 1
            if update in wanted:
                hook_graph(scaled.grad_fn, scaler._scale.clone(), found)
            scaled.backward()
            scaler.step(optimizer)
            scaler.update()
            optimizer.zero_grad()
    Path(out).write_text(json.dumps({"steps": sorted(wanted), "gradients": found}, indent=2) + "\n")


if __name__ == "__main__":
    main(*sys.argv[1:5])
