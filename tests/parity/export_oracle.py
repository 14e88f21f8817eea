"""The PyTorch-Python side of tests/test_export_parity.cpp: exports a small module with torch.export and
trains the module itself from the same weights on the same batches, eagerly, as the reference.

Usage: export_oracle.py MODEL OUT_DIR   (MODEL: cnn, a conv + batch-norm classifier; mlp)

Writes OUT_DIR/model.pt2 and OUT_DIR/oracle.pt: the batches ("x", "y"), each SGD step's fp32 loss
("losses"), the first step's gradients by parameter name ("grad/<name>"), and each step's loss with forward
and loss under bf16 autocast ("losses_bf16"), every run from the weights the archive holds.
"""
import copy
import sys

SKIP = 77
try:
    import torch
except ImportError:
    print("export_oracle.py: no torch in this Python")
    sys.exit(SKIP)
import torch.nn as nn
import torch.nn.functional as F

STEPS, BATCH, LR = 20, 8, 0.05


def make(name):
    if name == "cnn":
        return nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(),
                             nn.Conv2d(8, 16, 3, stride=2, padding=1), nn.BatchNorm2d(16), nn.ReLU(),
                             nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(16, 10))
    return nn.Sequential(nn.Flatten(), nn.Linear(192, 64), nn.ReLU(), nn.Linear(64, 10))


def train(model, batches, dtype=None):
    optimizer = torch.optim.SGD(model.parameters(), lr=LR)
    losses, first = [], None
    for x, y in batches:
        with torch.autocast("cpu", dtype=dtype or torch.bfloat16, enabled=dtype is not None):
            loss = F.cross_entropy(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        if first is None:
            first = {name: p.grad.clone() for name, p in model.named_parameters()}
        optimizer.step()
        losses.append(loss.item())
    return torch.tensor(losses, dtype=torch.float64), first


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    name, out = sys.argv[1], sys.argv[2]
    torch.manual_seed(0)
    model = make(name).train()
    initial = copy.deepcopy(model.state_dict())
    batch = torch.export.Dim("batch", min=1, max=1 << 20)
    program = torch.export.export(copy.deepcopy(model), (torch.randn(4, 3, 8, 8),), dynamic_shapes=({0: batch},))
    torch.export.save(program, f"{out}/model.pt2")
    x, y = torch.randn(STEPS, BATCH, 3, 8, 8), torch.randint(0, 10, (STEPS, BATCH))
    losses, first = train(model, zip(x, y))
    model.load_state_dict(initial)
    losses_bf16, _ = train(model, zip(x, y), torch.bfloat16)
    saved = {"x": x, "y": y, "losses": losses, "losses_bf16": losses_bf16}
    saved.update({f"grad/{k}": v for k, v in first.items()})
    torch.save(saved, f"{out}/oracle.pt")


if __name__ == "__main__":
    main()
