#!/usr/bin/env python3
"""The same experiment as ampbench, written as a user would in PyTorch-Python eager: the config (resolved
by `ampbench --dry-run`, so every default is ampbench's), the same data and batch order, the same
architectures, fused optimizers (fused=True: PyTorch-Python's fastest; its default is the foreach kernels on
CUDA and a per-parameter loop on the CPU, so the peer is the strongest Python loop), torch.autocast and
torch.amp.GradScaler, the same warm-up exclusion and epoch timing. Writes the core figures (samples/s,
epoch time, peak memory, validation loss) as a report.json in ampbench's layout, for
scripts/bench_vs_pytorch.py to compare.

Usage: peer_pytorch.py CONFIG --out REPORT.json [--ampbench BINARY] [--module MODEL]
                       [ampbench overrides: --modes ...]
An exported model's config (model type "exported") needs --module: the module the archive was exported from,
as scripts/export_model.py's MODEL names it, which the peer builds and loads the archive's weights into.
"""
import argparse
import ctypes
import json
import math
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import torch
import torch.nn.functional as F

sys.path.insert(0, str(Path(__file__).resolve().parent))
from peer_models import build_model, exported_module, refuse  # noqa: E402,F401  (build_model: peer_pytorch.build_model)

ROOT = Path(__file__).resolve().parent.parent


DTYPES = {"fp32": torch.float32, "fp16": torch.float16, "bf16": torch.bfloat16}


def recipe_rows(args):
    """ampbench's recipe table (`--list-modes json`): what each mode runs in, read rather than copied."""
    done = subprocess.run([args.ampbench, "--list-modes", "json"], capture_output=True, text=True)
    if done.returncode != 0:
        refuse(done.stderr.strip() or f"{args.ampbench} --list-modes json failed", done.returncode)
    return {row["name"]: row for row in json.loads(done.stdout)}


def resolved_config(args, overrides):
    command = [args.ampbench, "--config", args.config, "--dry-run", *overrides]
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        refuse(done.stderr.strip() or f"{command} failed", done.returncode)
    return json.loads(done.stdout)


# --- data: the same generators, draws and order as src/data ---------------------------------------------

def synthetic_images(d):
    g = torch.Generator().manual_seed(d["seed"])
    features = math.prod(d["shape"])
    factors = min(max(features // 4, 1), 16)
    patterns = torch.randn(factors, features, generator=g)
    teacher = torch.randn(factors, d["classes"], generator=g)

    def split(n):
        latent = torch.randn(n, factors, generator=g)
        noise = torch.randn(n, features, generator=g)
        inputs = (latent.matmul(patterns) / math.sqrt(factors) + noise) / math.sqrt(2.0)
        return inputs.reshape(n, *d["shape"]), latent.matmul(teacher).argmax(1)

    return (*split(d["train_samples"]), *split(d["val_samples"]))


def synthetic_tokens(d):
    if d.get("classes", 0):
        refuse("peer_pytorch.py: synthetic_tokens with classes (a sequence classifier's data) is not made here yet")
    g = torch.Generator().manual_seed(d["seed"])
    vocab, context = d["vocab"], d["context"]
    branching = min(d["branching"], vocab)
    successors = torch.randint(vocab, (vocab, branching), generator=g)
    weights = torch.rand(vocab, branching, generator=g) + 0.1

    def split(n):
        sequences = torch.empty(n, context + 1, dtype=torch.int64)
        current = torch.randint(vocab, (n,), generator=g)
        sequences[:, 0] = current
        for t in range(1, context + 1):
            choice = torch.multinomial(weights.index_select(0, current), 1, True, generator=g)
            current = successors.index_select(0, current).gather(1, choice).squeeze(1)
            sequences[:, t] = current
        return sequences[:, :context].clone(), sequences[:, 1:].clone()

    return (*split(d["train_samples"]), *split(d["val_samples"]))


def file_bytes(path, needed=None):
    """A data file's bytes as a uint8 tensor: all of them, or the first needed(file size). ampbench has
    already checked the files' formats in depth; the peer only needs to read them the same way."""
    try:
        with open(path, "rb") as f:
            data = f.read(needed(Path(path).stat().st_size) if needed else -1)
    except OSError as e:
        refuse(f"peer_pytorch.py: cannot read {path}: {e.strerror}")
    return torch.frombuffer(bytearray(data), dtype=torch.uint8)


def idx(path, rank):
    data = file_bytes(path)
    dims = [int.from_bytes(bytes(data[4 + 4 * i:8 + 4 * i].tolist()), "big") for i in range(rank)]
    return data[4 + 4 * rank:].reshape(dims)


def mnist(d):
    def split(prefix):
        images = idx(Path(d["dir"]) / f"{prefix}-images-idx3-ubyte", 3)
        labels = idx(Path(d["dir"]) / f"{prefix}-labels-idx1-ubyte", 1)
        return images.unsqueeze(1).to(torch.float32).div_(255.0), labels.to(torch.int64)

    return (*split("train"), *split("t10k"))


def cifar10(d):
    def split(names):
        records = torch.cat([file_bytes(Path(d["dir"]) / name) for name in names]).reshape(-1, 1 + 3 * 32 * 32)
        return records[:, 1:].reshape(-1, 3, 32, 32).to(torch.float32).div_(255.0), records[:, 0].to(torch.int64)

    return (*split([f"data_batch_{i}.bin" for i in range(1, 6)]), *split(["test_batch.bin"]))


def token_files(d):
    """As ampbench: only the tokens the first N windows use are read (a corpus can be gigabytes)."""
    context = d["context"]

    def split(name, limit):
        def needed(size):
            windows = (size // 2 - 1) // context
            return 2 * ((limit if 0 < limit < windows else windows) * context + 1)

        ids = file_bytes(Path(d["dir"]) / name, needed).view(torch.int16).to(torch.int64) & 0xFFFF  # little-endian
        windows = (ids.numel() - 1) // context
        length = windows * context
        return ids[:length].view(windows, -1), ids[1:length + 1].view(windows, -1)

    return (*split("train.bin", d["train_samples"]), *split("val.bin", d["val_samples"]))


def limited(tensors, train_limit, val_limit):
    """ampbench's sample limits on file sources: the first N, where 0 < N < all."""
    def cut(t, limit):
        return t[:limit] if 0 < limit < t.size(0) else t

    x, y, xv, yv = tensors
    return cut(x, train_limit), cut(y, train_limit), cut(xv, val_limit), cut(yv, val_limit)


def make_data(data):
    """The four tensors (train inputs, labels, val inputs, labels) and the number of classes or tokens."""
    (source, d), = data.items()
    if source == "synthetic":
        return synthetic_images(d), d["classes"]
    if source == "synthetic_tokens":
        return synthetic_tokens(d), d["vocab"]
    readers = {"mnist": (mnist, 10), "cifar10": (cifar10, 10), "tokens": (token_files, d.get("vocab"))}
    reader, classes = readers[source]
    return limited(reader(d), d["train_samples"], d["val_samples"]), classes


def epoch_order(seed, epoch, n):
    g = torch.Generator().manual_seed((seed + 0x9E3779B97F4A7C15 * (epoch + 1)) % 2**64)
    return torch.randperm(n, generator=g)


# --- the loop: as src/train/trainer.cpp and training_step.cpp -------------------------------------------

def loss_of(logits, labels, reduction="mean"):
    if logits.dim() > 2:
        logits, labels = logits.flatten(0, -2), labels.flatten()
    return F.cross_entropy(logits.float(), labels, reduction=reduction)


def cast_inputs(inputs, weights):
    """Floating inputs in the weights' dtype (pure bf16 has no autocast to cast them); token ids as they are."""
    return inputs.to(weights) if inputs.is_floating_point() else inputs


def host_malloc():
    """The file malloc resolves to in this process: glibc's libc, or a preloaded replacement (LD_PRELOAD)."""
    class DlInfo(ctypes.Structure):
        _fields_ = [("dli_fname", ctypes.c_char_p), ("dli_fbase", ctypes.c_void_p),
                    ("dli_sname", ctypes.c_char_p), ("dli_saddr", ctypes.c_void_p)]
    process = ctypes.CDLL(None)
    info = DlInfo()
    if not process.dladdr(ctypes.cast(process.malloc, ctypes.c_void_p), ctypes.byref(info)) or not info.dli_fname:
        return "unknown"
    return os.path.realpath(info.dli_fname.decode())


def synchronize(device):
    if device.type == "cuda":
        torch.cuda.synchronize(device)


class StepMarks:
    """Step times as ampbench takes them: the host clock on the CPU, CUDA events (recorded in the loop,
    read after it) on a GPU; never a sync in the loop."""

    def __init__(self, device, steps):
        self.cuda = device.type == "cuda"
        self.events = [torch.cuda.Event(enable_timing=True) for _ in range(steps + 1)] if self.cuda else []
        self.marks = []  # recorded events, or clock readings

    def mark(self):
        if self.cuda:
            self.events[len(self.marks)].record()
            self.marks.append(self.events[len(self.marks)])
        else:
            self.marks.append(time.perf_counter())

    def seconds(self):
        pairs = zip(self.marks, self.marks[1:])
        return [a.elapsed_time(b) / 1000 for a, b in pairs] if self.cuda else [b - a for a, b in pairs]


def fused_sgd_updates_bf16(device):
    # As ampbench's check step: from zero, a gradient of ones must move every element, vector blocks and tail.
    weight = torch.zeros(131, dtype=torch.bfloat16, device=device, requires_grad=True)
    weight.grad = torch.ones_like(weight)
    torch.optim.SGD([weight], lr=0.05, momentum=0.9, fused=True).step()
    return bool((weight != 0).all())


def train_mode(cfg, row, data, shape, classes, device, module=None):
    """One trial of the mode `row` (its row of ampbench's recipe table)."""
    train, precision = cfg["train"], cfg["precision"]
    x_train, y_train, x_val, y_val = data
    dtype = DTYPES.get(row["autocast"])
    # A pure mode: the model, its gradients and the optimizer's state in the row's weight format, no
    # autocast, the loss in fp32.
    weights = DTYPES[row["weights"]]
    tf32 = device.type == "cuda" and row["tf32"]
    torch.backends.cuda.matmul.allow_tf32 = tf32
    torch.backends.cudnn.allow_tf32 = tf32
    torch.backends.cudnn.benchmark = train["cudnn_benchmark"]
    memory_format = torch.channels_last if train["channels_last"] else torch.contiguous_format

    # As ampbench's probe: from an empty cache (no blocks left from the last mode), the peak above what
    # was allocated before the trial's model, so the weights, gradients, optimizer state and activations
    # all count.
    if device.type == "cuda":
        torch.cuda.empty_cache()
        torch.cuda.reset_peak_memory_stats(device)
    baseline = torch.cuda.memory_allocated(device) if device.type == "cuda" else None
    torch.manual_seed(cfg["seed"])
    model = build_model(cfg["model"], shape, classes, module).to(device, memory_format=memory_format)
    model.to(weights)
    o = train["optimizer"]
    fused = {"fused": True}
    if o["type"] == "sgd" and weights == torch.bfloat16 and not fused_sgd_updates_bf16(device):
        print("peer: torch.optim.SGD(fused=True) left bf16 weights unchanged in a check step "
              "(pytorch/pytorch#191763); using foreach=True", file=sys.stderr)
        fused = {"foreach": True}
    if o["type"] == "sgd":
        optimizer = torch.optim.SGD(model.parameters(), lr=o["lr"], momentum=o["momentum"],
                                    weight_decay=o["weight_decay"], **fused)
    else:
        optimizer = torch.optim.AdamW(model.parameters(), lr=o["lr"], betas=(o["beta1"], o["beta2"]), eps=o["eps"],
                                      weight_decay=o["weight_decay"], **fused)
    s = precision["grad_scaler"]
    scaler = torch.amp.GradScaler(device.type, init_scale=s["init_scale"], growth_factor=s["growth_factor"],
                                  backoff_factor=s["backoff_factor"], growth_interval=s["growth_interval"],
                                  enabled=row["gradient_guard"] == "grad_scaler")
    batch, accumulation = train["batch_size"], train["accumulation_steps"]
    steps = x_train.size(0) // batch

    def step(order, i):
        index = order[i * batch:(i + 1) * batch]
        inputs = cast_inputs(x_train.index_select(0, index), weights).contiguous(memory_format=memory_format)
        labels = y_train.index_select(0, index)
        with torch.autocast(device.type, dtype=dtype, enabled=dtype is not None):
            loss = loss_of(model(inputs), labels)
        # Without accumulation, dividing by 1 would cost a kernel forward and one backward for nothing.
        scaler.scale(loss / accumulation if accumulation > 1 else loss).backward()
        if (i + 1) % accumulation == 0 or i + 1 == steps:
            if "clip_grad_norm" in train:
                scaler.unscale_(optimizer)
                torch.nn.utils.clip_grad_norm_(model.parameters(), train["clip_grad_norm"], foreach=True)
            scaler.step(optimizer)
            scaler.update()
            optimizer.zero_grad()
        return loss.detach()

    epochs = []
    for epoch in range(1, train["epochs"] + 1):
        order = epoch_order(cfg["seed"], epoch, x_train.size(0)).to(device)
        model.train()
        optimizer.zero_grad()
        first = train["warmup_steps"] if epoch == 1 else 0
        for i in range(first):
            step(order, i)
        loss_sum = torch.zeros((), device=device)
        marks = StepMarks(device, steps - first)
        synchronize(device)
        start = time.perf_counter()
        marks.mark()
        for i in range(first, steps):
            loss_sum += step(order, i)
            marks.mark()
        synchronize(device)
        seconds = time.perf_counter() - start
        val_loss, val_accuracy = evaluate(model, x_val, y_val, batch, dtype, device, memory_format, weights)
        timed = steps - first
        epochs.append({"epoch": epoch, "seconds": seconds, "timed_steps": timed, "timed_samples": timed * batch,
                       "samples_per_second": timed * batch / seconds, "train_loss": loss_sum.item() / timed,
                       "val_loss": val_loss, "val_accuracy": val_accuracy, "step_seconds": marks.seconds()})
    peak = torch.cuda.max_memory_allocated(device) - baseline if device.type == "cuda" else None
    return epochs, peak


@torch.no_grad()
def evaluate(model, x_val, y_val, batch, dtype, device, memory_format, weights):
    model.eval()
    loss_sum, correct = torch.zeros((), dtype=torch.float64, device=device), torch.zeros((), dtype=torch.int64,
                                                                                          device=device)
    for begin in range(0, x_val.size(0), batch):
        inputs = cast_inputs(x_val[begin:begin + batch], weights).contiguous(memory_format=memory_format)
        labels = y_val[begin:begin + batch]
        with torch.autocast(device.type, dtype=dtype, enabled=dtype is not None):
            logits = model(inputs)
            loss_sum += loss_of(logits, labels, "sum")
        correct += logits.argmax(-1).eq(labels).sum()
    model.train()
    return loss_sum.item() / y_val.numel(), correct.item() / y_val.numel()


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("config")
    parser.add_argument("--out", required=True, help="where to write the report.json")
    parser.add_argument("--ampbench", default=str(ROOT / "build" / "ampbench"), help="resolves the config")
    parser.add_argument("--module", help="an exported model's module, as scripts/export_model.py's MODEL names it "
                                         "(torchvision:NAME, gpt2, llama, FILE.py:FACTORY): trained eagerly from "
                                         "the archive's weights")
    args, overrides = parser.parse_known_args()
    cfg = resolved_config(args, overrides)
    spec = cfg["device"]
    device = torch.device("cuda" if spec == "auto" and torch.cuda.is_available() else "cpu" if spec == "auto" else spec)
    tensors, classes = make_data(cfg["data"])
    shape = list(tensors[0].shape[1:])
    data = [t.to(device) for t in tensors]
    if cfg["model"]["type"] == "exported":  # its module checked before anything trains
        exported_module(args.module, cfg["model"]["options"]["path"], shape, classes)

    rows = recipe_rows(args)
    # Rounded updates and float8 layers are not PyTorch's own: torchao's, or ampbench's optimizer's.
    unwritten = [m for m in cfg["precision"]["modes"]
                 if rows[m]["linear_recipe"] is not None or rows[m]["update_rounding"] != "nearest"]
    if unwritten:
        refuse(f"peer_pytorch.py: {', '.join(unwritten)} not written here yet: their rounding is torchao's, not "
               "PyTorch's own")
    trials = []
    for trial in range(1, cfg["repeats"] + 1):
        for mode in cfg["precision"]["modes"]:
            if rows[mode]["arithmetic"] == "tf32" and device.type != "cuda":
                if trial == 1:
                    trials.append({"mode": mode, "trial": 1, "status": "skipped", "epochs": [],
                                   "memory": {"peak_bytes": None}})
                continue
            print(f"peer: {mode} trial {trial}", file=sys.stderr)
            epochs, peak = train_mode(cfg, rows[mode], data, shape, classes, device, args.module)
            trials.append({"mode": mode, "trial": trial, "status": "ok", "epochs": epochs,
                           "memory": {"probe": "torch.cuda.max_memory_allocated" if peak is not None else None,
                                      "peak_bytes": peak}})
    # No speed figures here: which epochs they compare is ampbench's rule, and bench_vs_pytorch.py takes
    # the epochs from ampbench's report of the same config (summary[].trials_compared).
    summary = []
    for mode in dict.fromkeys(t["mode"] for t in trials if t["status"] == "ok"):
        ok = [t for t in trials if t["mode"] == mode and t["status"] == "ok"]
        peaks = [t["memory"]["peak_bytes"] for t in ok if t["memory"]["peak_bytes"] is not None]
        summary.append({"mode": mode, "trials": len(ok),
                        "peak_bytes": max(peaks) if peaks else None,
                        "val_loss": statistics.median(t["epochs"][-1]["val_loss"] for t in ok)})
    report = {"schema_version": 2, "complete": True, "producer": "peer_pytorch.py", "config": cfg,
              "environment": {"torch": torch.__version__, "device": str(device), "host_malloc": host_malloc(),
                              "device_name": torch.cuda.get_device_name(device) if device.type == "cuda" else None},
              "trials": trials, "summary": summary}
    Path(args.out).write_text(json.dumps(report, indent=2) + "\n")


if __name__ == "__main__":
    main()
