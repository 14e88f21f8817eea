"""The fp16 gradient underflow of ampbench's --numerics pass, counted in PyTorch-Python: the config's fp16
training loop as scripts/peer_pytorch.py writes it (same data, initial weights and batch order; autocast,
torch.amp.GradScaler, fused SGD), and at each optimizer step that ampbench's report measured, every
parameter's gradient as backward left it (at the loss scale) and divided by the scale, cast to fp16 and
counted: the nonzero elements, those that flushed to zero and those that turned subnormal. Writes the counts
summed over the steps, per parameter in the model's order, as JSON.

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


def counts(values):
    cast = values.half()
    nonzero = values != 0
    return {"nonzero": int(nonzero.sum()), "flushed": int((nonzero & (cast == 0)).sum()),
            "subnormal": int(((cast != 0) & (cast.float().abs() < SMALLEST_NORMAL)).sum())}


def add(into, name, kind, figures):
    entry = into.setdefault(name, {}).setdefault(kind, {"nonzero": 0, "flushed": 0, "subnormal": 0})
    for key, value in figures.items():
        entry[key] += value


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
            scaler.scale(loss).backward()
            update += 1
            if update in wanted:
                for name, parameter in model.named_parameters():
                    gradient = parameter.grad.float()
                    add(found, name, "at_scale", counts(gradient))
                    add(found, name, "unscaled", counts(gradient / scaler._scale))
            scaler.step(optimizer)
            scaler.update()
            optimizer.zero_grad()
    parameters = [{"name": name, **figures} for name, figures in found.items()]  # in the model's order
    Path(out).write_text(json.dumps({"steps": sorted(wanted), "parameters": parameters}, indent=2) + "\n")


if __name__ == "__main__":
    main(*sys.argv[1:5])
