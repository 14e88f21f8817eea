#!/usr/bin/env python3
"""Exports models nothing in the test suite covers with scripts/export_model.py and trains each with ampbench,
as a new user would: torchvision and transformers architectures, and two hand-written models (attention
with a bool mask, tied weights, einsum, cumsum and an integer buffer; a GRU and an LSTM).

Usage: scripts/try_models.py AMPBENCH OUT [NAME ...]
  AMPBENCH  the ampbench binary; OUT a folder for the archives, configs and run folders; NAMEs: some of the
  list (default: all). Needs a Python with torch, torchvision and transformers (.venv-cuda has them).

Each model runs one short epoch (64 training samples, batch 16) in every default mode from the same weights.
The table it prints (Markdown) gives, per model, ampbench's exit code, each mode's status and fidelity, and
whether ampbench's trainable parameters equal PyTorch's count of the same module.
"""
import glob
import json
import os
import subprocess
import sys

import torch
from torch import nn

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import export_model  # noqa: E402

VOCAB, CONTEXT = 256, 32


class MaskedAttentionLM(nn.Module):
    """Token ids to next-token logits: nn.MultiheadAttention under a bool causal mask, an output head tied
    to the embedding, an einsum, a cumsum and an int64 buffer used in the arithmetic."""

    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, 64)
        self.attention = nn.MultiheadAttention(64, 4, batch_first=True)
        self.mix = nn.Parameter(torch.randn(64, 64) / 8)
        self.register_buffer("offset", torch.tensor(3, dtype=torch.int64))

    def forward(self, ids):
        x = self.embed(ids)
        mask = torch.ones(ids.size(1), ids.size(1), dtype=torch.bool, device=ids.device).triu(1)
        x = x + self.attention(x, x, x, attn_mask=mask, need_weights=False)[0]
        x = torch.einsum("btd,de->bte", x, self.mix).cumsum(1) / (self.offset + torch.arange(ids.size(1)))[:, None]
        return x @ self.embed.weight.t()


class RecurrentClassifier(nn.Module):
    """A sequence of feature vectors through a GRU then an LSTM to class logits."""

    def __init__(self):
        super().__init__()
        self.gru = nn.GRU(16, 32, batch_first=True)
        self.lstm = nn.LSTM(32, 32, batch_first=True)
        self.head = nn.Linear(32, 10)

    def forward(self, x):
        hidden, _ = self.gru(x)
        hidden, _ = self.lstm(hidden)
        return self.head(hidden[:, -1])


def masked_attention_lm():
    return MaskedAttentionLM()


def recurrent_classifier():
    return RecurrentClassifier()


IMAGE = ["--shape", "3,64,64", "--classes", "10"]
LM = ["--vocab", str(VOCAB), "--context", str(CONTEXT)]
CLASSIFIER = LM + ["--sequence-classes", "--classes", "3"]
MODELS = {
    "mobilenet_v3_small": ["torchvision:mobilenet_v3_small"] + IMAGE,
    "efficientnet_b0": ["torchvision:efficientnet_b0"] + IMAGE,
    "shufflenet_v2_x0_5": ["torchvision:shufflenet_v2_x0_5"] + IMAGE,
    "squeezenet1_0": ["torchvision:squeezenet1_0"] + IMAGE,
    "regnet_y_400mf": ["torchvision:regnet_y_400mf"] + IMAGE,
    "densenet121": ["torchvision:densenet121"] + IMAGE,
    "convnext_tiny": ["torchvision:convnext_tiny"] + IMAGE,
    "swin_t": ["torchvision:swin_t"] + IMAGE,
    "vit_b_16": ["torchvision:vit_b_16", "--model-arg", "image_size=64"] + IMAGE,
    "qwen2": ["transformers:qwen2"] + LM,
    "mistral": ["transformers:mistral"] + LM,
    "phi3": ["transformers:phi3"] + LM,
    "gpt_neox": ["transformers:gpt_neox"] + LM,
    "distilbert": ["transformers:distilbert"] + CLASSIFIER,
    "roberta": ["transformers:roberta"] + CLASSIFIER,
    "masked_attention_lm": [f"{__file__}:masked_attention_lm"] + LM,
    "recurrent_classifier": [f"{__file__}:recurrent_classifier", "--shape", "12,16", "--classes", "10"],
}


def pytorch_trainable(spec):
    """PyTorch's count of the module's trainable parameters, each tensor once (tied weights once)."""
    args = export_model.parse_arguments(spec)
    torch.manual_seed(0)
    model = export_model.build(args)
    seen, total = set(), 0
    for p in model.parameters():
        if p.requires_grad and id(p) not in seen:
            seen.add(id(p))
            total += p.numel()
    return total


def run(ampbench, out, name):
    spec = MODELS[name]
    exported = subprocess.run([sys.executable, os.path.join(HERE, "export_model.py"), *spec, "--out", out,
                               "--name", name], capture_output=True, text=True)
    if exported.returncode != 0:
        return {"model": name, "exported": False, "detail": exported.stderr.strip().splitlines()[-1]}
    config_path = os.path.join(out, name + ".json")
    config = json.load(open(config_path))
    section = next(iter(config["data"].values()))
    section.update(train_samples=64, val_samples=32)
    config["train"]["epochs"] = 1
    config["output"] = {"dir": os.path.join(out, "runs", name)}
    json.dump(config, open(config_path, "w"), indent=2)
    ran = subprocess.run([ampbench, "--config", config_path, "-q"], capture_output=True, text=True)
    reports = glob.glob(os.path.join(out, "runs", name, "*", "report.json"))
    row = {"model": name, "exported": True, "exit": ran.returncode, "pytorch_trainable": pytorch_trainable(spec)}
    if not reports:
        row["detail"] = (ran.stderr.strip().splitlines() or ["no report"])[-1]
        return row
    report = json.load(open(reports[0]))
    row["trainable"] = report["model"]["parameters"]["trainable"]
    row["modes"] = {}
    for trial in report["trials"]:
        row["modes"].setdefault(trial["mode"], trial["status"])
        if trial["status"] == "failed" and "detail" not in row:
            row["detail"] = f"{trial['mode']}: {(trial.get('detail') or '')[:160]}"
    for s in report["summary"]:
        row["modes"][s["mode"]] = f"{row['modes'].get(s['mode'], 'ok')}, {s['fidelity'] or '-'}"
    return row


def markdown(rows):
    lines = ["| model | exit | parameters (ampbench / PyTorch) | fp32 | fp16 | bf16 | detail |",
             "|---|---|---|---|---|---|---|"]
    for r in rows:
        modes = r.get("modes", {})
        params = f"{r.get('trainable', '-')} / {r.get('pytorch_trainable', '-')}"
        lines.append(f"| {r['model']} | {r.get('exit', 'not exported')} | {params} | "
                     + " | ".join(modes.get(m, "-") for m in ("fp32", "fp16", "bf16"))
                     + f" | {r.get('detail', '')} |")
    return "\n".join(lines)


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    ampbench, out, names = sys.argv[1], sys.argv[2], sys.argv[3:] or list(MODELS)
    unknown = [n for n in names if n not in MODELS]
    if unknown:
        sys.exit(f"try_models.py: unknown model(s) {', '.join(unknown)}; the list: {', '.join(MODELS)}")
    os.makedirs(out, exist_ok=True)
    rows = []
    for name in names:
        rows.append(run(ampbench, out, name))
        print(json.dumps(rows[-1]), file=sys.stderr, flush=True)
    print(markdown(rows))


if __name__ == "__main__":
    main()
