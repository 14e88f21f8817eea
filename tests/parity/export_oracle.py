"""The PyTorch-Python side of tests/test_export_parity.cpp: exports a module with scripts/export_model.py's
export() and trains the module itself from the same weights on the same batches, eagerly, as the reference.

Usage: export_oracle.py MODEL OUT_DIR
  MODEL: cnn (a conv + batch-norm classifier), mlp, resnet18 (torchvision's), gpt2, llama (transformers'
  small configs from export_model.py, dropout off: its masks could not be the same draws in both)

Writes OUT_DIR/model.pt2 and OUT_DIR/oracle.pt: the batches ("x", "y"), the SGD settings ("hyper": lr,
momentum, weight decay), the first batch's logits from the initial weights in each mode ("logits/<mode>",
as fp32), each step's loss in fp32, bf16 and fp16 ("losses/<mode>": forward and loss under
torch.autocast in the 16-bit modes, fp16's backward and step through torch.amp.GradScaler) and the first fp32
step's gradients by parameter name ("grad/<name>"), every run from the weights the archive holds.
"""
import copy
import importlib.util
import os
import sys

SKIP = 77
try:
    import torch
except ImportError:
    print("export_oracle.py: no torch in this Python")
    sys.exit(SKIP)
import torch.nn as nn
import torch.nn.functional as F

STEPS, BATCH = 20, 8
LR, MOMENTUM, WEIGHT_DECAY = 0.01, 0.0, 5e-4  # momentum: see train()
VOCAB, CONTEXT = 96, 16
MODES = {"fp32": None, "bf16": torch.bfloat16, "fp16": torch.float16}


def export_script():
    path = os.path.join(os.path.dirname(__file__), "..", "..", "scripts", "export_model.py")
    spec = importlib.util.spec_from_file_location("export_model", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def needs(package):
    if importlib.util.find_spec(package) is None:
        print(f"export_oracle.py: no {package} in this Python")
        sys.exit(SKIP)


def make(name, script):
    """The module and one sample's shape (None: CONTEXT token ids)."""
    if name == "cnn":
        return nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(),
                             nn.Conv2d(8, 16, 3, stride=2, padding=1), nn.BatchNorm2d(16), nn.ReLU(),
                             nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(16, 10)), (3, 8, 8)
    if name == "mlp":
        return nn.Sequential(nn.Flatten(), nn.Linear(192, 64), nn.ReLU(), nn.Linear(64, 10)), (3, 8, 8)
    if name == "resnet18":
        needs("torchvision")
        return script.torchvision_model("resnet18", 10), (3, 32, 32)
    needs("transformers")
    return script.transformers_model(name, VOCAB, CONTEXT, dropout=0.0), None


def batches(shape):
    if shape is None:
        return torch.randint(0, VOCAB, (STEPS, BATCH, CONTEXT)), torch.randint(0, VOCAB, (STEPS, BATCH, CONTEXT))
    return torch.randn(STEPS, BATCH, *shape), torch.randint(0, 10, (STEPS, BATCH))


def loss_of(logits, y):
    """ampbench's loss: cross-entropy in fp32 over every position of a language model's logits."""
    return F.cross_entropy(logits.flatten(0, -2).float(), y.flatten())


def train(model, xs, ys, mode):
    # No momentum: torch's fused SGD leaves a momentum buffer it allocated unset when GradScaler skips the
    # first step (ampbench's starts at zero), so the two would part at fp16's first skipped step.
    dtype = MODES[mode]
    optimizer = torch.optim.SGD(model.parameters(), lr=LR, momentum=MOMENTUM, weight_decay=WEIGHT_DECAY,
                                fused=True)
    scaler = torch.amp.GradScaler("cpu") if dtype == torch.float16 else None
    losses, first = [], None
    for x, y in zip(xs, ys):
        with torch.autocast("cpu", dtype=dtype or torch.bfloat16, enabled=dtype is not None):
            loss = loss_of(model(x), y)
        optimizer.zero_grad()
        (scaler.scale(loss) if scaler else loss).backward()
        if first is None:
            first = {name: p.grad.clone() for name, p in model.named_parameters()}
        if scaler:
            scaler.unscale_(optimizer)  # as ampbench's GradScaler::step: the fused step gets found_inf only
            scaler.step(optimizer)
            scaler.update()
        else:
            optimizer.step()
        losses.append(loss.item())
    return torch.tensor(losses, dtype=torch.float64), first


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    name, out = sys.argv[1], sys.argv[2]
    script = export_script()
    torch.manual_seed(0)
    model, shape = make(name, script)
    model.train()
    initial = copy.deepcopy(model.state_dict())
    x, y = batches(shape)
    script.export(copy.deepcopy(model), x[0, :4], f"{out}/model.pt2")
    saved = {"x": x, "y": y, "hyper": torch.tensor([LR, MOMENTUM, WEIGHT_DECAY], dtype=torch.float64)}
    for mode in MODES:
        model.load_state_dict(initial)
        with torch.no_grad(), torch.autocast("cpu", dtype=MODES[mode] or torch.bfloat16, enabled=mode != "fp32"):
            saved[f"logits/{mode}"] = model(x[0]).float()
        model.load_state_dict(initial)  # the forward moved batch norm's statistics
        losses, first = train(model, x, y, mode)
        saved[f"losses/{mode}"] = losses
        if mode == "fp32":
            saved.update({f"grad/{k}": v for k, v in first.items()})
    torch.save(saved, f"{out}/oracle.pt")


if __name__ == "__main__":
    main()
